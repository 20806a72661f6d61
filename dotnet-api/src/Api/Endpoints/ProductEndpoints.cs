using System.Text.Json.Serialization;
using Api.Data;
using Microsoft.EntityFrameworkCore;

namespace Api.Endpoints;

public static class ProductEndpoints
{
    public const int DefaultPageSize = 100;
    public const int MaxPageSize = 500;
    public const int MaxPage = 1_000_000;

    public sealed record ProductDto(int Id, string Sku, string Name, string? Description, decimal Price, int Version,
        [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? RequestId)
    {
        public static ProductDto From(Product p) => new(p.Id, p.Sku, p.Name, p.Description, p.Price, p.Version, p.RequestId);
    }

    public static void MapProductEndpoints(this IEndpointRouteBuilder app)
    {
        var products = app.MapGroup("/products");

        products.MapGet("/", async (string? page, string? pageSize, AppDbContext db, CancellationToken ct) =>
        {
            var errors = new Dictionary<string, string[]>();
            var p = QueryInt.Parse(page, "page", 1, 1, MaxPage, errors);
            var size = QueryInt.Parse(pageSize, "pageSize", DefaultPageSize, 1, MaxPageSize, errors);
            if (errors.Count > 0) return Results.ValidationProblem(errors);

            var items = await Page(db, p, size, ct);
            return Results.Ok(new { page = p, pageSize = size, items });
        });

        products.MapGet("/{id}", async (string id, AppDbContext db, CancellationToken ct) =>
        {
            if (ParseId(id) is not { } key) return InvalidId();
            var product = await db.Products.AsNoTracking().FirstOrDefaultAsync(x => x.Id == key, ct);
            return product is null ? NotFound(key) : Results.Ok(ProductDto.From(product));
        });

        products.MapPost("/", async (ProductInput input, AppDbContext db, CancellationToken ct) =>
        {
            var errors = input.Validate(skuRequired: false);
            if (errors.Count > 0) return Results.ValidationProblem(errors);
            var product = new Product
            {
                Sku = input.Sku ?? ProductInput.GeneratedSku(), Name = input.Name!, Description = input.Description,
                Price = input.Price!.Value, RequestId = input.RequestId,
            };
            db.Products.Add(product);
            await db.SaveChangesAsync(ct);
            return Results.Created($"/products/{product.Id}", ProductDto.From(product));
        });

        products.MapPut("/{id}", async (string id, ProductInput input, AppDbContext db, CancellationToken ct) =>
        {
            if (ParseId(id) is not { } key) return InvalidId();
            var errors = input.Validate();
            if (errors.Count > 0) return Results.ValidationProblem(errors);

            var product = await db.Products.FirstOrDefaultAsync(x => x.Id == key, ct);
            if (product is null) return NotFound(key);
            if (input.Version is { } expected)
            {
                // Compare against the version the client read: the UPDATE's WHERE uses it,
                // so a concurrent writer in between also ends in DbUpdateConcurrencyException (409).
                db.Entry(product).Property(x => x.Version).OriginalValue = expected;
            }
            product.Sku = input.Sku!;
            product.Name = input.Name!;
            product.Description = input.Description;
            product.Price = input.Price!.Value;
            product.Version = (input.Version ?? product.Version) + 1;
            await db.SaveChangesAsync(ct);
            return Results.Ok(ProductDto.From(product));
        });

        products.MapDelete("/{id}", async (string id, AppDbContext db, CancellationToken ct) =>
        {
            if (ParseId(id) is not { } key) return InvalidId();
            var deleted = await db.Products.Where(x => x.Id == key).ExecuteDeleteAsync(ct);
            return deleted == 0 ? NotFound(key) : Results.NoContent();
        });
    }

    // One page of products, as GET /products answers it (Hosting/WarmUp.cs runs it before listening).
    public static Task<List<ProductDto>> Page(AppDbContext db, int page, int size, CancellationToken ct) =>
        db.Products.AsNoTracking()
            .OrderBy(x => x.Id)
            .Skip((page - 1) * size)
            .Take(size)
            .Select(x => new ProductDto(x.Id, x.Sku, x.Name, x.Description, x.Price, x.Version, x.RequestId))
            .ToListAsync(ct);

    private static int? ParseId(string raw) =>
        int.TryParse(raw, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var id) && id > 0
            ? id
            : null;

    private static IResult InvalidId() =>
        Results.ValidationProblem(new Dictionary<string, string[]> { ["id"] = ["id must be a positive integer."] });

    private static IResult NotFound(int id) =>
        Results.Problem(statusCode: StatusCodes.Status404NotFound, title: "Not Found", detail: $"No product with id {id}.");
}
