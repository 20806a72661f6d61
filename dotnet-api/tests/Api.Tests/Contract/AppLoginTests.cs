using Api.Tests.Infrastructure;
using Npgsql;

namespace Api.Tests.Contract;

// The login the migrator creates for the app, on a real PostgreSQL server with password
// authentication: it can read and write Products, read which migrations are applied, and nothing
// else. (The whole PostgreSQL contract, ApiContract, already runs as this login.)
[Collection("postgres")]
public sealed class AppLoginTests(PostgresApi api)
{
    private NpgsqlConnection Connect(string user, string password) =>
        new(api.Server.ConnectionString(PostgresApi.Database, user, password) + ";Pooling=false");

    private async Task<object?> ScalarAsync(string user, string password, string sql)
    {
        await using var connection = Connect(user, password);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand(sql, connection);
        return await command.ExecuteScalarAsync();
    }

    private Task<object?> AsApp(string sql) => ScalarAsync(PostgresApi.AppUser, api.AppPassword, sql);

    [Fact]
    public async Task Reads_and_writes_products()
    {
        Assert.True((long)(await AsApp("""SELECT count(*) FROM "Products" """))! >= 100);
        var id = await AsApp("""INSERT INTO "Products" ("Sku", "Name", "Price", "Version") VALUES ('LOGIN-1', 'x', 1, 0) RETURNING "Id" """);
        Assert.Equal(1, (int)(await AsApp($"""UPDATE "Products" SET "Name" = 'y' WHERE "Id" = {id} RETURNING 1"""))!);
        Assert.Equal(1, (int)(await AsApp($"""DELETE FROM "Products" WHERE "Id" = {id} RETURNING 1"""))!);
    }

    [Theory]
    [InlineData("CREATE TABLE intruder (id int)")]
    [InlineData("""DROP TABLE "Products" """)]
    [InlineData("""ALTER TABLE "Products" ADD COLUMN extra int""")]
    [InlineData("""TRUNCATE "Products" """)]
    [InlineData("""DELETE FROM "__EFMigrationsHistory" """)]
    [InlineData("""INSERT INTO "__EFMigrationsHistory" VALUES ('x', 'y')""")]
    [InlineData("CREATE ROLE intruder LOGIN")]
    [InlineData("CREATE DATABASE intruder")]
    public async Task Is_refused_everything_else(string sql)
    {
        var e = await Assert.ThrowsAsync<PostgresException>(() => AsApp(sql));
        Assert.True(e.SqlState is PostgresErrorCodes.InsufficientPrivilege, $"{sql}: {e.SqlState} {e.MessageText}");
    }

    [Fact]
    public async Task Reads_which_migrations_are_applied()
    {
        Assert.True((long)(await AsApp("""SELECT count(*) FROM "__EFMigrationsHistory" """))! >= 2);
    }

    // What `docker compose up --scale` does to the migrator: it runs again. Up to date, it checks as
    // the app's login and never uses the administrator's: a wrong one does not stop it.
    [Fact]
    public async Task Migrating_again_when_up_to_date_needs_no_administrator()
    {
        await api.MigrateAsAdminAsync(PostgresApi.AppUser, api.AppPassword, adminPassword: "not-the-superusers-password");
        // Without a working app login it falls back on the administrator, whose wrong password fails.
        await Assert.ThrowsAsync<PostgresException>(() =>
            api.MigrateAsAdminAsync("not_yet_there", "Pw-" + Guid.NewGuid().ToString("N"), adminPassword: "not-the-superusers-password"));
    }

    [Fact]
    public async Task Is_neither_superuser_nor_able_to_create_roles_or_databases()
    {
        Assert.Equal("f f f", await AsApp("SELECT concat_ws(' ', rolsuper, rolcreaterole, rolcreatedb) FROM pg_roles WHERE rolname = current_user"));
    }

    [Fact]
    public async Task A_wrong_password_is_refused()
    {
        var e = await Assert.ThrowsAsync<PostgresException>(() => ScalarAsync(PostgresApi.AppUser, "wrong-" + api.AppPassword, "SELECT 1"));
        Assert.Equal(PostgresErrorCodes.InvalidPassword, e.SqlState);
    }

    [Fact]
    public async Task Migrating_again_resets_the_password_from_the_secret_file()
    {
        const string user = "rotated_app";
        var first = "First-" + Guid.NewGuid().ToString("N");
        var second = "Second-" + Guid.NewGuid().ToString("N");
        await api.MigrateAsAdminAsync(user, first);
        Assert.Equal(1, await ScalarAsync(user, first, "SELECT 1"));
        await api.MigrateAsAdminAsync(user, second);
        Assert.Equal(1, await ScalarAsync(user, second, "SELECT 1"));
        var e = await Assert.ThrowsAsync<PostgresException>(() => ScalarAsync(user, first, "SELECT 1"));
        Assert.Equal(PostgresErrorCodes.InvalidPassword, e.SqlState);
    }

    [Fact]
    public async Task The_superuser_is_never_turned_into_the_app_login()
    {
        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => api.MigrateAsAdminAsync("postgres", "Other-" + Guid.NewGuid().ToString("N")));
        Assert.Contains("DB_APP_USER names an administrator login", e.Message);
        // Its password is unchanged.
        Assert.Equal(1, await ScalarAsync("postgres", api.Server.AdminPassword, "SELECT 1"));
    }
}
