using System.Globalization;

namespace Api.Endpoints;

// Parses an optional integer query parameter within bounds; collects a message naming the field otherwise.
public static class QueryInt
{
    public static int Parse(string? raw, string name, int fallback, int min, int max, Dictionary<string, string[]> errors)
    {
        if (raw is null) return fallback;
        if (int.TryParse(raw, NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value >= min && value <= max)
        {
            return value;
        }
        errors[name] = [$"{name} must be an integer from {min} to {max}."];
        return fallback;
    }
}
