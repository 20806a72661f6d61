using Api.Data;
using Api.Endpoints;
using Microsoft.EntityFrameworkCore;

namespace Api.Hosting;

// Before Kestrel listens: a fresh replica's first requests would pay for EF Core building its model,
// compiling the products query and the insert, and opening the pool's first connection — 1.3–2.4 s
// for the first POST /products of a new replica of 0.5 CPU behind nginx (hand run, 2026-12-04).
// Docker's DNS lists a container as soon as it starts and nginx sends to it as soon as it accepts,
// ready or not, so the replica pays that before it listens: StartingAsync runs before any hosted
// service's StartAsync, the web server's included. The read, and the write in a transaction rolled
// back (nothing is kept). Bounded: a database that does not answer yet is not waited for here (the
// readiness check says so), the app starts cold instead.
public sealed class WarmUp(IServiceScopeFactory scopes, ILogger<WarmUp> log) : IHostedLifecycleService
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    public async Task StartingAsync(CancellationToken cancellationToken)
    {
        using var bounded = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bounded.CancelAfter(Bound);
        var started = System.Diagnostics.Stopwatch.StartNew();
        try
        {
            await using var scope = scopes.CreateAsyncScope();
            var db = scope.ServiceProvider.GetRequiredService<AppDbContext>();
            await ProductEndpoints.Page(db, 1, 1, bounded.Token);
            // Through the provider's execution strategy (retries on transient errors), as a unit.
            await db.Database.CreateExecutionStrategy().ExecuteAsync(async () =>
            {
                await using var tx = await db.Database.BeginTransactionAsync(bounded.Token);
                db.Products.Add(new Product { Sku = ProductInput.GeneratedSku(), Name = "warm-up", Price = 0 });
                await db.SaveChangesAsync(bounded.Token);
                await tx.RollbackAsync(bounded.Token);
                db.ChangeTracker.Clear();
            });
            log.LogInformation("Warmed up in {Ms} ms: the products query and insert, before listening", started.ElapsedMilliseconds);
        }
        catch (Exception e) when (e is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            log.LogWarning("Not warmed up ({Why}): the first requests pay for it", e.GetBaseException().Message.Split('\n')[0]);
        }
    }

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
