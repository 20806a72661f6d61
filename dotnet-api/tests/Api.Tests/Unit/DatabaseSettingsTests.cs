using System.Data.Common;
using Api.Data;
using Microsoft.Extensions.Configuration;

namespace Api.Tests.Unit;

// Which database the app opens, and where its passwords come from (files, as compose secrets).
public sealed class DatabaseSettingsTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("dotnet-api-settings-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private static IConfiguration Config(params (string Key, string Value)[] values) =>
        new ConfigurationBuilder().AddInMemoryCollection(values.Select(v => KeyValuePair.Create(v.Key, (string?)v.Value))).Build();

    private string Secret(string name, string content)
    {
        var path = Path.Combine(_dir, name);
        File.WriteAllText(path, content);
        return path;
    }

    private static string? Part(string connection, string key) =>
        new DbConnectionStringBuilder { ConnectionString = connection }.TryGetValue(key, out var v) ? v as string : null;

    [Fact]
    public void Database_Provider_picks_its_own_connection_string_when_Default_is_unset()
    {
        var settings = DatabaseSettings.From(Config(("Database:Provider", "Postgres"),
            ("ConnectionStrings:Sqlite", "Data Source=x.db"), ("ConnectionStrings:Postgres", "Host=h;Database=d")));
        Assert.Equal(DatabaseProvider.Postgres, settings.Provider);
        Assert.Equal("h", Part(settings.ConnectionString, "Host"));

        var sqlite = DatabaseSettings.From(Config(("Database:Provider", "Sqlite"),
            ("ConnectionStrings:Sqlite", "Data Source=x.db"), ("ConnectionStrings:Postgres", "Host=h;Database=d")));
        Assert.Equal("Data Source=x.db", sqlite.ConnectionString);
    }

    [Fact]
    public void Default_wins_over_the_provider_specific_string()
    {
        var settings = DatabaseSettings.From(Config(("Database:Provider", "Postgres"),
            ("ConnectionStrings:Default", "Host=default"), ("ConnectionStrings:Postgres", "Host=specific")));
        Assert.Equal("default", Part(settings.ConnectionString, "Host"));
    }

    [Fact]
    public void A_server_password_comes_from_DB_PASSWORD_FILE_without_its_newline_and_is_never_printed()
    {
        var settings = DatabaseSettings.From(Config(("Database:Provider", "Postgres"),
            ("ConnectionStrings:Postgres", "Host=h;Username=u"), ("DB_PASSWORD_FILE", Secret("pw", "from-file;with=odd'chars\n"))));
        Assert.Equal("from-file;with=odd'chars", Part(settings.ConnectionString, "Password"));
        Assert.DoesNotContain("from-file", settings.ToString());
    }

    [Fact]
    public void DB_APP_USER_takes_its_password_from_DB_APP_PASSWORD_FILE()
    {
        var settings = DatabaseSettings.From(Config(("Database:Provider", "Postgres"), ("ConnectionStrings:Postgres", "Host=h"),
            ("DB_APP_USER", "products_app"), ("DB_APP_PASSWORD_FILE", Secret("app", "app-pw\r\n"))));
        Assert.Equal(new AppLogin("products_app", "app-pw"), settings.AppLogin);
        Assert.Equal("products_app", settings.AppLogin!.ToString());

        var without = Assert.Throws<InvalidOperationException>(() => DatabaseSettings.From(Config(("Database:Provider", "Postgres"),
            ("ConnectionStrings:Postgres", "Host=h"), ("DB_APP_USER", "products_app"))));
        Assert.Contains("DB_APP_PASSWORD_FILE", without.Message);
    }

    [Fact]
    public void A_missing_password_file_is_an_error_naming_the_setting_and_the_file()
    {
        var missing = Path.Combine(_dir, "nope.txt");
        var e = Assert.Throws<InvalidOperationException>(() => DatabaseSettings.From(Config(("Database:Provider", "Postgres"),
            ("ConnectionStrings:Postgres", "Host=h"), ("DB_PASSWORD_FILE", missing))));
        Assert.StartsWith($"DB_PASSWORD_FILE={missing} cannot be read", e.Message);
        Assert.DoesNotContain('\n', e.Message);
    }

    [Fact]
    public void SQLite_has_no_password_and_reads_no_file()
    {
        var settings = DatabaseSettings.From(Config(("DB_PASSWORD_FILE", Path.Combine(_dir, "nope.txt")), ("DB_APP_USER", "x")));
        Assert.Equal((DatabaseProvider.Sqlite, DatabaseSettings.DefaultSqlite, (AppLogin?)null),
            (settings.Provider, settings.ConnectionString, settings.AppLogin));
    }

    [Fact]
    public void A_database_server_without_a_connection_string_is_an_error()
    {
        var e = Assert.Throws<InvalidOperationException>(() => DatabaseSettings.From(Config(("Database:Provider", "Postgres"))));
        Assert.Equal("ConnectionStrings:Default or ConnectionStrings:Postgres is required for Postgres.", e.Message);
    }
}
