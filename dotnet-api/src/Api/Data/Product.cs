namespace Api.Data;

public class Product
{
    public int Id { get; set; }
    public required string Sku { get; set; }
    public required string Name { get; set; }
    public string? Description { get; set; }
    public decimal Price { get; set; }

    // Optimistic concurrency token, incremented on every update. Portable across SQLite,
    // PostgreSQL and SQL Server (unlike rowversion/xmin).
    public int Version { get; set; }
}
