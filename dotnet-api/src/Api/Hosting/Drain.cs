using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Api.Hosting;

// Whether the process has been asked to stop and is serving on for the drain delay.
public sealed class DrainState
{
    private volatile bool _draining;

    public bool Draining => _draining;

    public void Begin() => _draining = true;
}

// On a stop (SIGTERM: docker stop, a scale-down, a rollout), before Kestrel stops accepting: mark
// the process draining — /health/ready 503, every answer `Connection: close` — and serve on for
// Shutdown:DrainDelaySeconds, until whoever routes here has stopped (nginx re-resolves the name
// every 1 s; Swarm takes a task out of its DNS before the signal; Kubernetes takes a pod that is
// not ready out of its endpoints). StoppingAsync runs before any hosted service's StopAsync, so
// Kestrel is still accepting meanwhile; then it finishes the requests in flight within what is
// left of Shutdown:TimeoutSeconds. The delay outlasts nginx's upstream keepalive_timeout (10 s):
// every connection nginx kept idle here it has closed itself by then, so Kestrel closes none under
// a request nginx is sending (a POST lost as a 502: nginx never resends one).
// Then, with a delay (behind a DNS name), the process stops accepting and stays up Linger, its
// open connections answered, before Kestrel stops: nginx's next tries are refused at once and it
// marks the replica failed (max_fails) for its fail_timeout, longer than it takes to re-resolve the
// name once the container is gone — so it never waits out a connect to the vanished address
// (proxy_connect_timeout, 1 s).
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
            await Task.Delay(settings.DrainDelay, cancellationToken);
            if (settings.DrainDelay <= TimeSpan.Zero) return;
            // Refusing from now on, the connections open answered (Listeners.cs); then Kestrel stops.
            await listeners.StopAcceptingAsync(cancellationToken);
            await Task.Delay(Linger, cancellationToken);
        }
        catch (OperationCanceledException)
        {
            // The shutdown timeout ran out during the delay: close now.
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
