namespace Api.Hosting;

// Process-level knobs read from configuration (env: Runtime__MinWorkerThreads, Shutdown__TimeoutSeconds,
// Shutdown__DrainDelaySeconds). GC mode and processor count are the runtime's own env vars
// (DOTNET_gcServer, DOTNET_PROCESSOR_COUNT), read before any code runs; they're documented in the README.
// ShutdownTimeout bounds the whole stop: the drain delay (Hosting/Drain.cs), then the requests in flight.
public sealed record RuntimeSettings(int MinWorkerThreads, TimeSpan ShutdownTimeout, TimeSpan DrainDelay = default)
{
    public static RuntimeSettings From(IConfiguration config)
    {
        var min = config.GetValue("Runtime:MinWorkerThreads", 0);
        var shutdown = config.GetValue("Shutdown:TimeoutSeconds", 20);
        var delay = config.GetValue("Shutdown:DrainDelaySeconds", 0);
        if (min < 0 || min > 32767) throw new InvalidOperationException("Runtime:MinWorkerThreads must be 0..32767 (0 = runtime default).");
        if (shutdown < 0 || shutdown > 3600) throw new InvalidOperationException("Shutdown:TimeoutSeconds must be 0..3600.");
        if (delay < 0 || (delay > 0 && delay >= shutdown))
        {
            throw new InvalidOperationException($"Shutdown:DrainDelaySeconds must be 0, or at least 0 and below Shutdown:TimeoutSeconds ({shutdown}), which bounds the whole stop.");
        }
        return new RuntimeSettings(min, TimeSpan.FromSeconds(shutdown), TimeSpan.FromSeconds(delay));
    }

    // Raising the minimum lets the pool grow at once instead of ~1-2 threads per second:
    // a stop-gap for blocking code, not a fix.
    public void Apply()
    {
        if (MinWorkerThreads <= 0) return;
        ThreadPool.GetMinThreads(out _, out var io);
        ThreadPool.SetMinThreads(MinWorkerThreads, io);
    }
}
