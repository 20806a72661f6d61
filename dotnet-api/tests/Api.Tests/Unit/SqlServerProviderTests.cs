using System.Data.Common;
using Api.Data;
using Microsoft.EntityFrameworkCore;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;

namespace Api.Tests.Unit;

// SQL Server is compiled into every build; no server runs here, so these check what needs none:
// the settings, the provider the app wires up, and that the SqlServer migrations match the model.
public sealed class SqlServerProviderTests
{
    private static DatabaseSettings Settings() => DatabaseSettings.From(new ConfigurationBuilder()
        .AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Database:Provider"] = "SqlServer",
            ["ConnectionStrings:SqlServer"] = "Server=127.0.0.1,1;Database=Products;User Id=sa;TrustServerCertificate=True",
        }).Build());

    [Fact]
    public void SqlServer_settings_resolve_without_a_special_build()
    {
        var settings = Settings();
        Assert.Equal(DatabaseProvider.SqlServer, settings.Provider);
        Assert.Equal("Products", new DbConnectionStringBuilder { ConnectionString = settings.ConnectionString }["Database"]);
    }

    [Fact]
    public void SqlServer_context_uses_its_provider_and_its_own_migrations_matching_the_model()
    {
        using var services = new ServiceCollection().AddLogging().AddProductsDatabase(Settings()).BuildServiceProvider();
        using var scope = services.CreateScope();
        var db = scope.ServiceProvider.GetRequiredService<AppDbContext>();

        Assert.IsType<SqlServerAppDbContext>(db);
        Assert.Equal("Microsoft.EntityFrameworkCore.SqlServer", db.Database.ProviderName);
        var migrations = db.Database.GetMigrations().ToList();
        Assert.NotEmpty(migrations);
        Assert.All(migrations, m => Assert.Matches("^[0-9]{14}_", m));
        Assert.False(db.Database.HasPendingModelChanges(), "Migrations/SqlServer's snapshot disagrees with the model");
    }
}
