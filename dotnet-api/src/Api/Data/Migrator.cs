using Microsoft.EntityFrameworkCore;

namespace Api.Data;

// `dotnet Api.dll migrate`: apply the provider's migrations, seed products, create the app's
// least-privilege login (DB_APP_USER, on a database server), exit. Run once (compose service
// `migrator`, connected as the administrator) instead of in every replica at start-up.
public static class Migrator
{
    public static async Task RunAsync(IServiceProvider services, CancellationToken ct = default)
    {
        using var scope = services.CreateScope();
        var sp = scope.ServiceProvider;
        var log = sp.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(Migrator));
        var config = sp.GetRequiredService<IConfiguration>();
        var db = sp.GetRequiredService<AppDbContext>();

        await db.Database.MigrateAsync(ct);
        if (db.Database.IsSqlite())
        {
            // WAL lets readers in other processes (replicas) proceed while one writes.
            await db.Database.ExecuteSqlRawAsync("PRAGMA journal_mode=WAL;", ct);
        }
        log.LogInformation("Migrations applied ({Provider})", db.Database.ProviderName);

        var file = config["Seed:ProductsFile"] ?? ProductSeeder.FindDefaultFile();
        if (string.IsNullOrEmpty(file) || !File.Exists(file))
        {
            throw new FileNotFoundException(
                $"Seed file not found: set Seed__ProductsFile (tried '{file ?? "database/products/products.json"}').");
        }
        var added = await ProductSeeder.SeedAsync(db, await ProductSeeder.ReadAsync(file, ct), ct);
        log.LogInformation("Seeded {Added} new products from {File}", added, file);

        var settings = sp.GetRequiredService<DatabaseSettings>();
        if (settings.AppLogin is { } login)
        {
            await AppLoginSetup.EnsureAsync(db, settings.Provider, login, ct);
            log.LogInformation("Login {Login} ready: SELECT, INSERT, UPDATE, DELETE on Products, nothing else", login.Name);
        }
    }
}
