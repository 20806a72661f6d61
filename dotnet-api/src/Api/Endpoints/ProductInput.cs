using System.ComponentModel.DataAnnotations;
using Api.Data;

namespace Api.Endpoints;

public sealed class ProductInput
{
    // Required on PUT; on POST a missing sku is generated (GeneratedSku), so a write can be sent
    // without inventing a unique value, as the drills' POSTs are.
    [StringLength(AppDbContext.SkuMaxLength, MinimumLength = 1)]
    public string? Sku { get; set; }

    [Required, StringLength(AppDbContext.NameMaxLength, MinimumLength = 1)]
    public string? Name { get; set; }

    [StringLength(AppDbContext.DescriptionMaxLength)]
    public string? Description { get; set; }

    [Required, Range(typeof(decimal), "0", "1000000000", ParseLimitsInInvariantCulture = true,
        ConvertValueInInvariantCulture = true)]
    public decimal? Price { get; set; }

    // PUT only: the version the client read. A stale one is a conflict (409).
    [Range(0, int.MaxValue)]
    public int? Version { get; set; }

    // POST only (PUT leaves the stored one as it is): a client-chosen id for this request, stored
    // as given in a column that is not unique, so a replayed POST is visible as a second row.
    [StringLength(AppDbContext.RequestIdMaxLength, MinimumLength = 1)]
    [RegularExpression("^[A-Za-z0-9._:-]+$",
        ErrorMessage = "The field RequestId may hold only letters, digits and . _ : - (at most 64).")]
    public string? RequestId { get; set; }

    public static string GeneratedSku() => "P-" + Guid.NewGuid().ToString("N");

    // DataAnnotations, with camelCase field names as the JSON uses them.
    public Dictionary<string, string[]> Validate(bool skuRequired = true)
    {
        var results = new List<ValidationResult>();
        Validator.TryValidateObject(this, new ValidationContext(this), results, validateAllProperties: true);
        if ((skuRequired || Sku is not null) && string.IsNullOrWhiteSpace(Sku))
        {
            results.Add(new ValidationResult("The Sku field is required and must not be blank.", [nameof(Sku)]));
        }
        // numeric(18,2) would round silently; say so instead.
        if (Price is { } price && decimal.Round(price, 2) != price)
        {
            results.Add(new ValidationResult("The field Price must have at most 2 decimal places.", [nameof(Price)]));
        }
        return results
            .SelectMany(r => r.MemberNames.Select(m => (Field: JsonName(m), r.ErrorMessage)))
            .GroupBy(e => e.Field)
            .ToDictionary(g => g.Key, g => g.Select(e => e.ErrorMessage ?? "Invalid value.").ToArray());
    }

    private static string JsonName(string member) => char.ToLowerInvariant(member[0]) + member[1..];
}
