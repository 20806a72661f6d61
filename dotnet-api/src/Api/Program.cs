using Api.Data;
using Api.Endpoints;
using Api.Errors;
using Api.Hosting;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.AspNetCore.Http.Json;

if (args is ["--healthcheck", var probeUrl, ..])
{
    return await HealthProbe.RunAsync(probeUrl);
}

// appsettings.json sits beside Api.dll; the runner starts `dotnet out/Api.dll` from the sample folder.
var builder = WebApplication.CreateBuilder(new WebApplicationOptions
{
    Args = args,
    ContentRootPath = AppContext.BaseDirectory,
});
RuntimeSettings runtime;
DatabaseSettings database;
int? metricsPort;
try
{
    runtime = RuntimeSettings.From(builder.Configuration);
    database = DatabaseSettings.From(builder.Configuration);
    metricsPort = Metrics.PortFrom(builder.Configuration);
}
catch (InvalidOperationException e)
{
    // A bad setting or an unreadable secret file: one line naming it, exit 2 (no stack trace).
    Console.Error.WriteLine(e.Message);
    return 2;
}
runtime.Apply();

// Locally (the runner, the tests) PORT is set and the app listens on loopback; in the container
// ASPNETCORE_HTTP_PORTS=8080 (the aspnet image's default) applies instead.
if (builder.Configuration["PORT"] is { Length: > 0 } port)
{
    if (!int.TryParse(port, out var p) || p is < 1 or > 65535)
    {
        Console.Error.WriteLine($"PORT must be 1..65535, got '{port}'.");
        return 2;
    }
    builder.WebHost.UseUrls($"http://{builder.Configuration["HOST"] ?? "127.0.0.1"}:{p}");
}
if (metricsPort is { } mp)
{
    Metrics.Listen(builder.WebHost, builder.Configuration, mp);
    builder.Services.AddPrometheusMetrics();
}

builder.WebHost.ConfigureKestrel(k =>
{
    // Same cap as nginx's client_max_body_size. Keep-alive stays at Kestrel's 130 s default:
    // above nginx's upstream keepalive_timeout (10 s), so the proxy always closes idle connections first.
    k.Limits.MaxRequestBodySize = 1024 * 1024;
});
builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = runtime.ShutdownTimeout);
builder.Services.Configure<RouteHandlerOptions>(o => o.ThrowOnBadRequest = true);
builder.Services.Configure<JsonOptions>(o => o.SerializerOptions.MaxDepth = 16);

builder.Services.AddProblemDetails();
builder.Services.AddExceptionHandler<ProblemExceptionHandler>();
builder.Services.AddProductsDatabase(database);
builder.Services.AddSingleton(runtime);
builder.Services.AddSingleton<DrainState>();
// Kestrel's sockets, which the drain can stop accepting on before Kestrel stops (Hosting/Listeners.cs).
builder.Services.AddSingleton<DrainableListeners>();
builder.Services.AddSingleton<Microsoft.AspNetCore.Connections.IConnectionListenerFactory>(sp => sp.GetRequiredService<DrainableListeners>());
builder.Services.AddHostedService<DrainOnStop>();
builder.Services.AddHostedService<WarmUp>();
builder.Services.AddHealthChecks()
    .AddDbContextCheck<AppDbContext>(tags: ["ready"])
    .AddCheck<DrainHealthCheck>("draining", tags: ["ready"]);

var app = builder.Build();

if (args.Contains("migrate"))
{
    try
    {
        await Migrator.RunAsync(app.Services);
        // Disposing flushes the console logger's queue: returning at once could lose its last lines.
        await app.DisposeAsync();
        return 0;
    }
    catch (Exception e)
    {
        app.Logger.LogError(e, "Migration failed");
        // The log (and its stack trace) first, then the cause as the last line of the output.
        await app.DisposeAsync();
        Console.Error.WriteLine($"migrate failed: {e.GetBaseException().Message.Split('\n')[0]}");
        return 1;
    }
}

if (metricsPort is { } scrapePort) app.UseMetricsPort(scrapePort);
app.UseExceptionHandler();
app.UseStatusCodePages();
// Once the drain has stopped accepting, every answer closes its connection, so the proxy stops
// reusing it (no request sent on a connection just as it is closed): Hosting/Drain.cs.
var drain = app.Services.GetRequiredService<DrainState>();
app.Use((context, next) =>
{
    if (drain.Closing) context.Response.Headers.Connection = "close";
    return next(context);
});

app.MapInfoEndpoints();
app.MapProductEndpoints();
app.MapDatabaseInfoEndpoints();
app.MapHealthChecks("/health/live", new HealthCheckOptions { Predicate = _ => false });
app.MapHealthChecks("/health/ready", new HealthCheckOptions { Predicate = c => c.Tags.Contains("ready") });

await app.RunAsync();
return 0;

public partial class Program;
