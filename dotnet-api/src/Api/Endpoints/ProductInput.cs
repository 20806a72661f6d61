using System.ComponentModel.DataAnnotations;
using Api.Data;

namespace Api.Endpoints;

public sealed class ProductInput
{
    [Required, StringLength(AppDbContext.SkuMaxLength, MinimumLength = 1)]
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

    // DataAnnotations, with camelCase field names as the JSON uses them.
    public Dictionary<string, string[]> Validate()
    {
        var results = new List<ValidationResult>();
        Validator.TryValidateObject(this, new ValidationContext(this), results, validateAllProperties: true);
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
