using System.Reflection;
using Api.Data;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Design;
using Microsoft.EntityFrameworkCore.Design.Internal;

// `dotnet run -- <MigrationName>`: adds the migration to all three sets, as
// `dotnet ef migrations add <MigrationName> --context <X>AppDbContext -o Migrations/<X>` would.
public static class Gen
{
    public static int Main(string[] args)
    {
        if (args is not [var name]) { Console.Error.WriteLine("usage: dotnet run -- <MigrationName>"); return 2; }
        var projectDir = Path.GetFullPath(Path.Combine(AppContext.BaseDirectory, "../../../../../src/Api"));
        var reporter = new OperationReporter(new OperationReportHandler(
            e => Console.Error.WriteLine("error: " + e), w => Console.Error.WriteLine("warn: " + w), Console.WriteLine, _ => { }));
        var asm = Assembly.GetExecutingAssembly();
        var ops = new MigrationsOperations(reporter, asm, asm, projectDir, "Api", "C#", true, []);
        foreach (var provider in new[] { "Sqlite", "Postgres", "SqlServer" })
        {
            var dir = Path.Combine(projectDir, "Migrations", provider);
            var files = ops.AddMigration(name, dir, $"{provider}AppDbContext", $"Api.Migrations.{provider}", false);
            // EF places the snapshot by namespace (Api/Migrations/<X>/ under the project): put it beside its migrations.
            if (files.SnapshotFile is { } snapshot && Path.GetDirectoryName(snapshot) != dir)
            {
                File.Move(snapshot, Path.Combine(dir, Path.GetFileName(snapshot)), overwrite: true);
            }
            Console.WriteLine(files.MigrationFile);
        }
        var stray = Path.Combine(projectDir, "Api");
        if (Directory.Exists(stray)) Directory.Delete(stray, recursive: true);
        return 0;
    }
}

public sealed class SqliteFactory : IDesignTimeDbContextFactory<SqliteAppDbContext>
{
    public SqliteAppDbContext CreateDbContext(string[] args) =>
        new(new DbContextOptionsBuilder<SqliteAppDbContext>().UseSqlite(DatabaseSettings.DefaultSqlite).Options);
}

public sealed class PostgresFactory : IDesignTimeDbContextFactory<PostgresAppDbContext>
{
    public PostgresAppDbContext CreateDbContext(string[] args) =>
        new(new DbContextOptionsBuilder<PostgresAppDbContext>().UseNpgsql("Host=localhost").Options);
}

public sealed class SqlServerFactory : IDesignTimeDbContextFactory<SqlServerAppDbContext>
{
    public SqlServerAppDbContext CreateDbContext(string[] args) =>
        new(new DbContextOptionsBuilder<SqlServerAppDbContext>().UseSqlServer("Server=localhost", o => o.EnableRetryOnFailure()).Options);
}
