using System.Runtime;
using System.Text.Json;

namespace Api.Endpoints;

public static class InfoEndpoints
{
    public const int MaxPiSamples = 10_000_000;
    public const int DefaultPiSamples = 1_000_000;
    public const int MaxDelayMs = 5_000;
    public const int DefaultDelayMs = 100;

    public static string InstanceName { get; } =
        Environment.GetEnvironmentVariable("INSTANCE_NAME") is { Length: > 0 } name ? name : Environment.MachineName;

    public static void MapInfoEndpoints(this IEndpointRouteBuilder app)
    {
        app.MapGet("/api", () =>
        {
            ThreadPool.GetMinThreads(out var minWorkers, out _);
            return TypedResults.Ok(new
            {
                hostname = InstanceName,
                pid = Environment.ProcessId,
                processorCount = Environment.ProcessorCount,
                threadPool = new
                {
                    threads = ThreadPool.ThreadCount,
                    pendingWorkItems = ThreadPool.PendingWorkItemCount,
                    minWorkerThreads = minWorkers,
                },
                gc = GCSettings.IsServerGC ? "server" : "workstation",
            });
        });

        // CPU-bound: Monte-Carlo estimate of pi over `samples` random points.
        app.MapGet("/pi", (string? samples) =>
        {
            var errors = new Dictionary<string, string[]>();
            var n = QueryInt.Parse(samples, "samples", DefaultPiSamples, 1, MaxPiSamples, errors);
            if (errors.Count > 0) return Results.ValidationProblem(errors);
            return Results.Ok(new { hostname = InstanceName, samples = n, pi = EstimatePi(n) });
        });

        // Slow I/O done right: the thread goes back to the pool while waiting.
        app.MapGet("/delay", async (string? ms, CancellationToken ct) =>
        {
            var errors = new Dictionary<string, string[]>();
            var wait = QueryInt.Parse(ms, "ms", DefaultDelayMs, 0, MaxDelayMs, errors);
            if (errors.Count > 0) return Results.ValidationProblem(errors);
            await Task.Delay(wait, ct);
            return Results.Ok(new { hostname = InstanceName, delayedMs = wait, blocking = false });
        });

        // Write traffic that needs no database (the fault and rollout drills): 201 with the parsed
        // body. Malformed JSON is a 400 and another content type a 415, as ProblemDetails.
        app.MapPost("/echo", (JsonElement body) =>
            Results.Created((string?)null, new { hostname = InstanceName, pid = Environment.ProcessId, echo = body }));

        // The sync-over-async mistake, on purpose: a pool thread is held for the whole wait.
        // Under concurrency the pool starves and even /api queues behind it.
        app.MapGet("/delay/blocking", (string? ms) =>
        {
            var errors = new Dictionary<string, string[]>();
            var wait = QueryInt.Parse(ms, "ms", DefaultDelayMs, 0, MaxDelayMs, errors);
            if (errors.Count > 0) return Results.ValidationProblem(errors);
            Task.Delay(wait).Wait();
            return Results.Ok(new { hostname = InstanceName, delayedMs = wait, blocking = true });
        });
    }

    // xorshift32, the generator node-replicas and node-cluster use: the same work per sample in
    // all three runtimes, and no library generator whose cost differs between them.
    public static double EstimatePi(int samples, uint seed = 0)
    {
        var s = seed != 0 ? seed : (uint)Random.Shared.Next(1, int.MaxValue);
        var inside = 0;
        for (var i = 0; i < samples; i++)
        {
            s ^= s << 13; s ^= s >> 17; s ^= s << 5;
            var x = s / 4294967296.0;
            s ^= s << 13; s ^= s >> 17; s ^= s << 5;
            var y = s / 4294967296.0;
            if (x * x + y * y <= 1.0) inside++;
        }
        return 4.0 * inside / samples;
    }
}
