using Api.Data;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Mvc.Testing;
using Microsoft.Extensions.DependencyInjection;

namespace Api.Tests.Infrastructure;

// The real app (Program) in memory with a chosen provider; the database is migrated and seeded
// through the same code path as `dotnet Api.dll migrate`.
public class ApiFactory(string provider, string connectionString) : WebApplicationFactory<Program>
{
    public string Provider { get; } = provider;

    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        builder.UseEnvironment("Production");
        builder.UseSetting("Database:Provider", Provider);
        builder.UseSetting("ConnectionStrings:Default", connectionString);
        builder.UseSetting("Seed:ProductsFile", Paths.SeedFile);
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

public sealed class PostgresApi : IAsyncLifetime
{
    private readonly PostgresServer _server = new();

    public ApiFactory Factory { get; }

    public PostgresApi() => Factory = new ApiFactory("Postgres", _server.ConnectionString("dotnet_api_tests"));

    public Task InitializeAsync() => Factory.MigrateAsync();

    public async Task DisposeAsync()
    {
        await Factory.DisposeAsync();
        Npgsql.NpgsqlConnection.ClearAllPools();
        _server.Dispose();
    }
}

[CollectionDefinition("postgres")]
public sealed class PostgresCollection : ICollectionFixture<PostgresApi>;

public static class FactoryChecks
{
    public static DatabaseProvider ActiveProvider(this ApiFactory f) => f.Services.GetRequiredService<DatabaseInfo>().Provider;
}
