using System.Data.Common;
using Microsoft.Data.SqlClient;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Migrations;
using Npgsql;

namespace Api.Data;

// `dotnet Api.dll migrate`: apply the provider's migrations, seed products, create the app's
// least-privilege login (DB_APP_USER, on a database server), exit. Run once per deployment (compose
// service `migrator`) instead of in every replica at start-up. Compose starts a one-shot service
// again on every `up`, a scale included: then it first connects as the app's own login, and when
// that works and no migration is pending it only checks the seed, as that login, and exits — the
// administrator's login is used only when there is schema to change or the app's login to create
// (or its password to reset).
public static class Migrator
{
    public static async Task RunAsync(IServiceProvider services, CancellationToken ct = default)
    {
        using var scope = services.CreateScope();
        var sp = scope.ServiceProvider;
        var log = sp.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(Migrator));
        var config = sp.GetRequiredService<IConfiguration>();
        var settings = sp.GetRequiredService<DatabaseSettings>();
        var seedFile = SeedFile(config);

        if (settings.AppLogin is { } app && await UpToDateAsAsync(settings, app, seedFile, log, ct))
        {
            return;
        }

        var db = sp.GetRequiredService<AppDbContext>();
        await db.Database.MigrateAsync(ct);
        if (db.Database.IsSqlite())
        {
            // WAL lets readers in other processes (replicas) proceed while one writes.
            await db.Database.ExecuteSqlRawAsync("PRAGMA journal_mode=WAL;", ct);
        }
        log.LogInformation("Migrations applied ({Provider})", db.Database.ProviderName);

        var added = await ProductSeeder.SeedAsync(db, await ProductSeeder.ReadAsync(seedFile, ct), ct);
        log.LogInformation("Seeded {Added} new products from {File}", added, seedFile);

        if (settings.AppLogin is { } login)
        {
            await AppLoginSetup.EnsureAsync(db, settings.Provider, login, ct);
            log.LogInformation("Login {Login} ready: SELECT, INSERT, UPDATE, DELETE on Products and SELECT on {History}, nothing else",
                login.Name, HistoryRepository.DefaultTableName);
        }
    }

    private static string SeedFile(IConfiguration config)
    {
        var file = config["Seed:ProductsFile"] ?? ProductSeeder.FindDefaultFile();
        if (string.IsNullOrEmpty(file) || !File.Exists(file))
        {
            throw new FileNotFoundException(
                $"Seed file not found: set Seed__ProductsFile (tried '{file ?? "database/products/products.json"}').");
        }
        return file;
    }

    // As the app's login: true when it can connect, no migration is pending and the seed is there
    // (added if not: the login may insert). Any failure (no such login yet, a new password, the
    // database not up) means "not known to be up to date": the administrator's path decides.
    private static async Task<bool> UpToDateAsAsync(DatabaseSettings settings, AppLogin login, string seedFile, ILogger log, CancellationToken ct)
    {
        await using var db = ContextAs(settings, login);
        if (db is null) return false;
        try
        {
            var pending = (await db.Database.GetPendingMigrationsAsync(ct)).ToList();
            if (pending.Count > 0)
            {
                log.LogInformation("{Count} migration(s) pending ({First}...): migrating as the administrator", pending.Count, pending[0]);
                return false;
            }
            var added = await ProductSeeder.SeedAsync(db, await ProductSeeder.ReadAsync(seedFile, ct), ct);
            log.LogInformation("Up to date, checked as {Login} (no migration pending, {Added} seed products added): the administrator's login not used",
                login.Name, added);
            return true;
        }
        catch (DbException e)
        {
            log.LogInformation("As {Login}: {Reason}: migrating as the administrator", login.Name, e.Message.Split('\n')[0]);
            return false;
        }
    }

    private static AppDbContext? ContextAs(DatabaseSettings settings, AppLogin login) => settings.Provider switch
    {
        DatabaseProvider.Postgres => new PostgresAppDbContext(new DbContextOptionsBuilder<PostgresAppDbContext>().UseNpgsql(
            new NpgsqlConnectionStringBuilder(settings.ConnectionString) { Username = login.Name, Password = login.Password, Pooling = false }.ConnectionString).Options),
        DatabaseProvider.SqlServer => new SqlServerAppDbContext(new DbContextOptionsBuilder<SqlServerAppDbContext>().UseSqlServer(
            new SqlConnectionStringBuilder(settings.ConnectionString) { UserID = login.Name, Password = login.Password, Pooling = false }.ConnectionString).Options),
        _ => null,
    };
}
