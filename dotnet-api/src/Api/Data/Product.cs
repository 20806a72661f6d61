namespace Api.Data;

public class Product
{
    public int Id { get; set; }
    public required string Sku { get; set; }
    public required string Name { get; set; }
    public string? Description { get; set; }
    public decimal Price { get; set; }

    // A client-chosen id for the request that created the row (POST's `requestId`). Deliberately
    // not unique: a POST replayed by a proxy or a retrying client shows up as two rows, which is
    // how the drills count duplicated writes.
    public string? RequestId { get; set; }

    // Optimistic concurrency token, incremented on every update. Portable across SQLite,
    // PostgreSQL and SQL Server (unlike rowversion/xmin).
    public int Version { get; set; }
}
