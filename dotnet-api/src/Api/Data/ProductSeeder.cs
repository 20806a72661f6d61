using System.Text.Json;
using Microsoft.EntityFrameworkCore;

namespace Api.Data;

public sealed record SeedProduct(string Sku, string Name, string? Description, decimal Price);

// Inserts the products from database/products/products.json whose sku is not there yet,
// so running the migrator twice is harmless.
public static class ProductSeeder
{
    public static async Task<IReadOnlyList<SeedProduct>> ReadAsync(string path, CancellationToken ct = default)
    {
        await using var stream = File.OpenRead(path);
        var items = await JsonSerializer.DeserializeAsync<List<SeedProduct>>(stream, JsonSerializerOptions.Web, ct);
        return items ?? [];
    }

    public static async Task<int> SeedAsync(AppDbContext db, IReadOnlyList<SeedProduct> seed, CancellationToken ct = default)
    {
        // With connection resiliency on, a user transaction must run inside the execution strategy.
        var strategy = db.Database.CreateExecutionStrategy();
        return await strategy.ExecuteAsync(async () =>
        {
            db.ChangeTracker.Clear();
            await using var tx = await db.Database.BeginTransactionAsync(ct);
            var existing = await db.Products.AsNoTracking().Select(p => p.Sku).ToListAsync(ct);
            var known = existing.ToHashSet(StringComparer.Ordinal);
            var added = 0;
            foreach (var s in seed.Where(s => known.Add(s.Sku)))
            {
                db.Products.Add(new Product { Sku = s.Sku, Name = s.Name, Description = s.Description, Price = s.Price });
                added++;
            }
            await db.SaveChangesAsync(ct);
            await tx.CommitAsync(ct);
            return added;
        });
    }

    // database/products/products.json, looked up from the working directory and the app's folder upwards.
    public static string? FindDefaultFile()
    {
        foreach (var start in new[] { Directory.GetCurrentDirectory(), AppContext.BaseDirectory })
        {
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            {
                var candidate = Path.Combine(dir.FullName, "database", "products", "products.json");
                if (File.Exists(candidate)) return candidate;
            }
        }
        return null;
    }
}
