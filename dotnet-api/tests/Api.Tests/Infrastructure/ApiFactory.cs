using Api.Data;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Mvc.Testing;
using Microsoft.Extensions.DependencyInjection;

namespace Api.Tests.Infrastructure;

// The real app (Program) in memory with a chosen provider; the database is migrated and seeded
// through the same code path as `dotnet Api.dll migrate`.
public class ApiFactory(string provider, string connectionString, Dictionary<string, string>? settings = null)
    : WebApplicationFactory<Program>
{
    public string Provider { get; } = provider;

    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        builder.UseEnvironment("Production");
        builder.UseSetting("Database:Provider", Provider);
        builder.UseSetting("ConnectionStrings:Default", connectionString);
        builder.UseSetting("Seed:ProductsFile", Paths.SeedFile);
        foreach (var (key, value) in settings ?? []) builder.UseSetting(key, value);
    }

    public async Task MigrateAsync() => await Migrator.RunAsync(Services);
}

public sealed class SqliteApi : IAsyncLifetime
{
    private readonly string _dir = Directory.CreateTempSubdirectory("dotnet-api-sqlite-").FullName;

    public ApiFactory Factory { get; }

    public SqliteApi() => Factory = new ApiFactory("Sqlite", $"Data Source={Path.Combine(_dir, "products.db")}");

    public Task InitializeAsync() => Factory.MigrateAsync();

    public async Task DisposeAsync()
    {
        await Factory.DisposeAsync();
        Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
        Directory.Delete(_dir, recursive: true);
    }
}

// The contract on PostgreSQL as compose runs it: the migrator connects as the superuser and
// creates the app's least-privilege login; the app connects as that login.
public sealed class PostgresApi : IAsyncLifetime
{
    public const string Database = "dotnet_api_tests";
    public const string AppUser = "products_app";

    private readonly string _secrets = Directory.CreateTempSubdirectory("dotnet-api-secrets-").FullName;

    public PostgresServer Server { get; } = new();
    public string AppPassword { get; } = "App-" + Guid.NewGuid().ToString("N");
    public ApiFactory Factory { get; }

    public PostgresApi() => Factory = new ApiFactory("Postgres", Server.ConnectionString(Database, AppUser, AppPassword));

    public Task InitializeAsync() => MigrateAsAdminAsync(AppUser, AppPassword);

    // `migrate` as the superuser, creating (or resetting) `user` with `password` from a secret file.
    // adminPassword: another one than the superuser's, to show what runs without it.
    public async Task MigrateAsAdminAsync(string user, string password, string? adminPassword = null)
    {
        var file = Path.Combine(_secrets, $"{user}.txt");
        await File.WriteAllTextAsync(file, password + "\n");
        var connection = adminPassword is null ? Server.ConnectionString(Database) : Server.ConnectionString(Database, "postgres", adminPassword);
        await using var admin = new ApiFactory("Postgres", connection,
            new() { ["DB_APP_USER"] = user, ["DB_APP_PASSWORD_FILE"] = file });
        await admin.MigrateAsync();
    }

    public async Task DisposeAsync()
    {
        await Factory.DisposeAsync();
        Npgsql.NpgsqlConnection.ClearAllPools();
        Server.Dispose();
        Directory.Delete(_secrets, recursive: true);
    }
}

[CollectionDefinition("postgres")]
public sealed class PostgresCollection : ICollectionFixture<PostgresApi>;

public static class FactoryChecks
{
    public static DatabaseProvider ActiveProvider(this ApiFactory f) => f.Services.GetRequiredService<DatabaseSettings>().Provider;
}
