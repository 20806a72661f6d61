using System.Data.Common;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Migrations;

namespace Api.Data;

// The login the app connects as, with only the rights it needs: read and write the Products table,
// and read which migrations are applied (so the migrator can tell, as this login, that it has
// nothing to do).
// The migrator, connected as the database's administrator, creates it (or resets its password)
// after the migrations. Names and passwords are quoted by the database server itself
// (format('%I', '%L') in PostgreSQL, QUOTENAME in SQL Server), never by string concatenation here.
public static class AppLoginSetup
{
    private const string SuperuserRefused = "DB_APP_USER names an administrator login; the app must connect with fewer rights.";

    // PostgreSQL: the server writes the statements (a NULL answer means the role is a superuser).
    private const string PostgresStatements = """
        SELECT CASE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = @login AND rolsuper) THEN NULL ELSE format(
            CASE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = @login) THEN 'ALTER' ELSE 'CREATE' END
            || ' ROLE %1$I WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD %2$L;'
            || ' REVOKE ALL ON DATABASE %3$I FROM PUBLIC; GRANT CONNECT ON DATABASE %3$I TO %1$I;'
            || ' REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO %1$I;'
            || ' GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE %4$I TO %1$I;'
            || ' GRANT SELECT ON TABLE %5$I TO %1$I;',
            @login, @password, current_database(), @table, @history) END
        """;

    // SQL Server (the compose file's database; runs only there): a login, its user in this database,
    // and the four rights on the table.
    private const string SqlServerStatements = """
        IF IS_SRVROLEMEMBER('sysadmin', @login) = 1 THROW 50000, N'DB_APP_USER names an administrator login; the app must connect with fewer rights.', 1;
        DECLARE @sql nvarchar(max) = CASE WHEN SUSER_ID(@login) IS NULL THEN N'CREATE' ELSE N'ALTER' END
            + N' LOGIN ' + QUOTENAME(@login) + N' WITH PASSWORD = ' + QUOTENAME(@password, '''') + N';';
        IF USER_ID(@login) IS NULL SET @sql += N' CREATE USER ' + QUOTENAME(@login) + N' FOR LOGIN ' + QUOTENAME(@login) + N';';
        SET @sql += N' GRANT SELECT, INSERT, UPDATE, DELETE ON ' + QUOTENAME(@table) + N' TO ' + QUOTENAME(@login) + N';';
        SET @sql += N' GRANT SELECT ON ' + QUOTENAME(@history) + N' TO ' + QUOTENAME(@login) + N';';
        EXEC sys.sp_executesql @sql;
        """;

    public static async Task EnsureAsync(AppDbContext db, DatabaseProvider provider, AppLogin login, CancellationToken ct = default)
    {
        var table = db.Model.FindEntityType(typeof(Product))?.GetTableName()
            ?? throw new InvalidOperationException("The model has no Products table.");
        var connection = db.Database.GetDbConnection();
        await db.Database.OpenConnectionAsync(ct);
        try
        {
            switch (provider)
            {
                case DatabaseProvider.Postgres:
                {
                    await using var generate = Command(connection, PostgresStatements, login, table);
                    var statements = await generate.ExecuteScalarAsync(ct) as string
                        ?? throw new InvalidOperationException(SuperuserRefused);
                    await using var apply = connection.CreateCommand();
                    apply.CommandText = statements;
                    await apply.ExecuteNonQueryAsync(ct);
                    break;
                }
                case DatabaseProvider.SqlServer:
                {
                    await using var apply = Command(connection, SqlServerStatements, login, table);
                    await apply.ExecuteNonQueryAsync(ct);
                    break;
                }
                default:
                    throw new InvalidOperationException($"{provider} has no logins: DB_APP_USER applies to Postgres and SqlServer.");
            }
        }
        finally
        {
            await db.Database.CloseConnectionAsync();
        }
    }

    private static DbCommand Command(DbConnection connection, string sql, AppLogin login, string table)
    {
        var command = connection.CreateCommand();
        command.CommandText = sql;
        foreach (var (name, value) in new[] { ("login", login.Name), ("password", login.Password), ("table", table), ("history", HistoryRepository.DefaultTableName) })
        {
            var parameter = command.CreateParameter();
            parameter.ParameterName = name;
            parameter.Value = value;
            command.Parameters.Add(parameter);
        }
        return command;
    }
}
