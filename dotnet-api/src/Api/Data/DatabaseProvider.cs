using Microsoft.Data.Sqlite;
using Microsoft.EntityFrameworkCore;
using Npgsql;

namespace Api.Data;

public enum DatabaseProvider { Sqlite, Postgres, SqlServer }

public static class DatabaseSetup
{
    public static DatabaseProvider ParseProvider(string? value) => value?.Trim().ToLowerInvariant() switch
    {
        null or "" or "sqlite" => DatabaseProvider.Sqlite,
        "postgres" or "postgresql" or "npgsql" => DatabaseProvider.Postgres,
        "sqlserver" or "mssql" => DatabaseProvider.SqlServer,
        _ => throw new InvalidOperationException(
            $"Database:Provider '{value}' is not one of Sqlite, Postgres, SqlServer."),
    };

    public static IServiceCollection AddProductsDatabase(this IServiceCollection services, DatabaseSettings database)
    {
        services.AddSingleton(database);
        var connection = database.ConnectionString;
        switch (database.Provider)
        {
            case DatabaseProvider.Sqlite:
                services.AddDbContextPool<AppDbContext, SqliteAppDbContext>(o => o.UseSqlite(connection));
                break;
            case DatabaseProvider.Postgres:
                services.AddDbContextPool<AppDbContext, PostgresAppDbContext>(o =>
                    o.UseNpgsql(connection, npgsql => npgsql.EnableRetryOnFailure()));
                break;
            case DatabaseProvider.SqlServer:
                // Connection resiliency: transient SQL Server errors (failover, throttling) are retried.
                services.AddDbContextPool<AppDbContext, SqlServerAppDbContext>(o =>
                    o.UseSqlServer(connection, sql => sql.EnableRetryOnFailure()));
                break;
        }
        return services;
    }

    // Unique index violations, recognised per provider.
    public static bool IsUniqueViolation(DbUpdateException e) => e.InnerException switch
    {
        SqliteException s => s.SqliteErrorCode == 19 && s.SqliteExtendedErrorCode is 2067 or 1555,
        PostgresException p => p.SqlState == PostgresErrorCodes.UniqueViolation,
        Microsoft.Data.SqlClient.SqlException m => m.Number is 2601 or 2627,
        _ => false,
    };
}
