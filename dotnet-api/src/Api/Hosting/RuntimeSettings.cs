namespace Api.Hosting;

// Process-level knobs read from configuration (env: Runtime__MinWorkerThreads, Shutdown__TimeoutSeconds).
// GC mode and processor count are the runtime's own env vars (DOTNET_gcServer, DOTNET_PROCESSOR_COUNT),
// read before any code runs; they're documented in the README.
public sealed record RuntimeSettings(int MinWorkerThreads, TimeSpan ShutdownTimeout)
{
    public static RuntimeSettings From(IConfiguration config)
    {
        var min = config.GetValue("Runtime:MinWorkerThreads", 0);
        var shutdown = config.GetValue("Shutdown:TimeoutSeconds", 20);
        if (min < 0 || min > 32767) throw new InvalidOperationException("Runtime:MinWorkerThreads must be 0..32767 (0 = runtime default).");
        if (shutdown < 0 || shutdown > 3600) throw new InvalidOperationException("Shutdown:TimeoutSeconds must be 0..3600.");
        return new RuntimeSettings(min, TimeSpan.FromSeconds(shutdown));
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
