using Microsoft.EntityFrameworkCore;

namespace Api.Data;

// One model, one subclass per provider: each subclass owns its own migrations set
// (Migrations/Sqlite, Migrations/Postgres, Migrations/SqlServer), the way EF Core keeps
// provider-specific migrations apart.
public abstract class AppDbContext(DbContextOptions options) : DbContext(options)
{
    public const int SkuMaxLength = 64;
    public const int NameMaxLength = 200;
    public const int DescriptionMaxLength = 2000;
    public const int RequestIdMaxLength = 64;

    public DbSet<Product> Products => Set<Product>();

    protected override void OnModelCreating(ModelBuilder modelBuilder)
    {
        var product = modelBuilder.Entity<Product>();
        product.Property(p => p.Sku).HasMaxLength(SkuMaxLength);
        product.Property(p => p.Name).HasMaxLength(NameMaxLength);
        product.Property(p => p.Description).HasMaxLength(DescriptionMaxLength);
        product.Property(p => p.Price).HasPrecision(18, 2);
        product.Property(p => p.Version).IsConcurrencyToken();
        product.HasIndex(p => p.Sku).IsUnique();
        product.Property(p => p.RequestId).HasMaxLength(RequestIdMaxLength);
        // Not unique on purpose (see Product.RequestId); indexed so a count by id prefix stays cheap.
        product.HasIndex(p => p.RequestId);
    }
}

public sealed class SqliteAppDbContext(DbContextOptions<SqliteAppDbContext> options) : AppDbContext(options);

public sealed class PostgresAppDbContext(DbContextOptions<PostgresAppDbContext> options) : AppDbContext(options);

public sealed class SqlServerAppDbContext(DbContextOptions<SqlServerAppDbContext> options) : AppDbContext(options);
