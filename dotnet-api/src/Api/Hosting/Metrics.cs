using OpenTelemetry.Metrics;

namespace Api.Hosting;

// Prometheus metrics on a port of their own (METRICS_PORT), never on the app's port that nginx
// proxies: GET /metrics there, through OpenTelemetry's Prometheus exporter, of the meters .NET
// itself already keeps —
//   System.Runtime                        the thread pool (dotnet.thread_pool.thread.count,
//                                         .queue.length, .work_item.count), CPU time, GC, memory;
//   Microsoft.AspNetCore.Hosting          every request by route, method and status with its
//                                         latency (http.server.request.duration);
//   Microsoft.AspNetCore.Server.Kestrel   connections open and queued (kestrel.active_connections,
//                                         kestrel.queued_connections).
public static class Metrics
{
    public const string Path = "/metrics";
    private static readonly string[] Meters =
        ["System.Runtime", "Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Server.Kestrel"];

    // METRICS_PORT: unset, no metrics; else 1..65535 and not the app's own PORT.
    public static int? PortFrom(IConfiguration config)
    {
        var raw = config["METRICS_PORT"];
        if (string.IsNullOrEmpty(raw)) return null;
        if (!int.TryParse(raw, out var port) || port is < 1 or > 65535)
        {
            throw new InvalidOperationException($"METRICS_PORT must be 1..65535, got '{raw}'.");
        }
        if (raw == config["PORT"])
        {
            throw new InvalidOperationException($"METRICS_PORT ({raw}) must differ from PORT: /metrics has a port of its own.");
        }
        return port;
    }

    // Kestrel listens on the app's address(es) and on the metrics port: locally PORT on HOST, in the
    // container the image's ASPNETCORE_HTTP_PORTS (8080) on every interface.
    public static void Listen(ConfigureWebHostBuilder host, IConfiguration config, int metricsPort)
    {
        if (config["PORT"] is { Length: > 0 } port)
        {
            var ip = config["HOST"] ?? "127.0.0.1";
            host.UseUrls($"http://{ip}:{port}", $"http://{ip}:{metricsPort}");
            return;
        }
        var appPorts = (Environment.GetEnvironmentVariable("ASPNETCORE_HTTP_PORTS") ?? "8080")
            .Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        host.UseUrls([.. appPorts.Select(p => $"http://+:{p}"), $"http://+:{metricsPort}"]);
    }

    public static void AddPrometheusMetrics(this IServiceCollection services) =>
        services.AddOpenTelemetry().WithMetrics(m => m
            .AddMeter(Meters)
            // Each scrape reads the meters afresh (the exporter caches an answer 300 ms by default).
            .AddPrometheusExporter(o => o.ScrapeResponseCacheDurationMilliseconds = 0));

    // GET /metrics on the metrics port; anything else sent there is 404, and /metrics on the app's
    // port is the 404 of any unknown path.
    public static void UseMetricsPort(this WebApplication app, int port)
    {
        app.UseOpenTelemetryPrometheusScrapingEndpoint(
            c => c.Connection.LocalPort == port && c.Request.Path == Path && HttpMethods.IsGet(c.Request.Method));
        app.Use((context, next) =>
        {
            if (context.Connection.LocalPort != port) return next(context);
            return Results.Problem(
                statusCode: StatusCodes.Status404NotFound,
                detail: $"This port serves GET {Path} only.").ExecuteAsync(context);
        });
    }
}
