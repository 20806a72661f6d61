using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Api.Hosting;

// Whether the process has been asked to stop (Draining: not ready), and whether its answers now
// close their connections (Closing: once it has stopped accepting, or at once without a delay).
public sealed class DrainState
{
    private volatile bool _draining;
    private volatile bool _closing;

    public bool Draining => _draining;
    public bool Closing => _closing;

    public void Begin() => _draining = true;
    public void Close() => _closing = true;
}

// On a stop (SIGTERM: docker stop, a scale-down, a rollout), before Kestrel stops accepting: mark
// the process not ready (/health/ready 503) and serve on for Shutdown:DrainDelaySeconds, until
// whoever routes here has stopped (nginx re-resolves the name every 2 s; Swarm takes a task out of
// its DNS before the signal; Kubernetes takes a pod that is not ready out of its endpoints; plain
// Compose keeps a stopping container's address until it has exited, so nginx sends on meanwhile).
// Keep-alive stays on through the delay: nginx goes on with the connections it keeps here rather
// than opening new ones, and a connection it has just opened is the one a closing listening socket
// resets (the kernel drops its accept queue): a POST written on it is lost as a 502, which nginx
// never resends (1 of 20 rollouts on Docker, hand run 2026-12-04, when every answer closed its
// connection during the delay). StoppingAsync runs before any hosted service's StopAsync, so
// Kestrel is still accepting meanwhile.
// Then, with a delay, the process stops accepting (Listeners.cs: new connections refused, open
// ones answered, each answer closing its connection) and stays up Linger before Kestrel stops:
// nginx's next tries are refused at once and it marks the replica failed (max_fails) for its
// fail_timeout, longer than it takes to re-resolve the name once the container is gone — so it
// never waits out a connect to the vanished address (proxy_connect_timeout, 1 s). Kestrel's stop
// then closes what is left idle, and finishes the requests in flight within what is left of
// Shutdown:TimeoutSeconds.
public sealed class DrainOnStop(DrainState drain, RuntimeSettings settings, DrainableListeners listeners, ILogger<DrainOnStop> log)
    : IHostedLifecycleService
{
    public static readonly TimeSpan Linger = TimeSpan.FromSeconds(1);

    public async Task StoppingAsync(CancellationToken cancellationToken)
    {
        drain.Begin();
        log.LogInformation("Stopping: not ready, serving on for {Delay} s before closing", settings.DrainDelay.TotalSeconds);
        try
        {
            if (settings.DrainDelay <= TimeSpan.Zero) return;
            await Task.Delay(settings.DrainDelay, cancellationToken);
            drain.Close();
            await listeners.StopAcceptingAsync(cancellationToken);
            await Task.Delay(Linger, cancellationToken);
        }
        catch (OperationCanceledException)
        {
            // The shutdown timeout ran out during the delay: close now.
        }
        finally
        {
            drain.Close();
        }
    }

    public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}

// Part of /health/ready: unhealthy while draining.
public sealed class DrainHealthCheck(DrainState drain) : IHealthCheck
{
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default) =>
        Task.FromResult(drain.Draining ? HealthCheckResult.Unhealthy("draining") : HealthCheckResult.Healthy());
}
