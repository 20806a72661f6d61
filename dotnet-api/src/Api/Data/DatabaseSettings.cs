using System.Data.Common;

namespace Api.Data;

// Which database, how to reach it, and (for the migrator) which login to create for the app.
//   Database:Provider                    Sqlite (default), Postgres or SqlServer
//   ConnectionStrings:Default            else ConnectionStrings:<Provider> (so one environment can
//                                        carry a string per provider and Database:Provider pick one)
//   DB_PASSWORD_FILE                     a database server's password, kept out of the string
//   DB_APP_USER, DB_APP_PASSWORD_FILE    migrate only: the least-privilege login it creates
public sealed record DatabaseSettings(DatabaseProvider Provider, string ConnectionString, AppLogin? AppLogin)
{
    public const string DefaultSqlite = "Data Source=products.db";

    public static DatabaseSettings From(IConfiguration config)
    {
        var provider = DatabaseSetup.ParseProvider(config["Database:Provider"]);
        var connection = new[] { config.GetConnectionString("Default"), config.GetConnectionString(provider.ToString()) }
            .FirstOrDefault(c => !string.IsNullOrWhiteSpace(c));
        if (provider == DatabaseProvider.Sqlite) return new(provider, connection ?? DefaultSqlite, null);

        if (connection is null)
        {
            throw new InvalidOperationException($"ConnectionStrings:Default or ConnectionStrings:{provider} is required for {provider}.");
        }
        if (SecretFile.Read(config, "DB_PASSWORD_FILE") is { } password)
        {
            connection = new DbConnectionStringBuilder { ConnectionString = connection, ["Password"] = password }.ConnectionString;
        }
        AppLogin? login = null;
        if (config["DB_APP_USER"] is { Length: > 0 } user)
        {
            login = new AppLogin(user, SecretFile.Read(config, "DB_APP_PASSWORD_FILE")
                ?? throw new InvalidOperationException("DB_APP_USER is set: DB_APP_PASSWORD_FILE must name the file with its password."));
        }
        return new(provider, connection, login);
    }

    // Never print the connection string: it holds a password.
    public override string ToString() => $"{Provider} database";
}

public sealed record AppLogin(string Name, string Password)
{
    public override string ToString() => Name;
}
