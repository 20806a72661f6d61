using System.Net;
using System.Text.Json;

namespace Api.Tests.Infrastructure;

public static class ProblemAssert
{
    // An application/problem+json body with the given status; no exception text anywhere.
    public static async Task<JsonElement> IsProblem(HttpResponseMessage response, HttpStatusCode status)
    {
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == status, $"expected {(int)status}, got {(int)response.StatusCode}: {body}");
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.DoesNotContain("Exception", body);
        Assert.DoesNotContain("   at ", body);
        var json = JsonDocument.Parse(body).RootElement;
        Assert.Equal((int)status, json.GetProperty("status").GetInt32());
        return json;
    }

    public static async Task HasFieldErrors(HttpResponseMessage response, params string[] fields)
    {
        var json = await IsProblem(response, HttpStatusCode.BadRequest);
        var errors = json.GetProperty("errors");
        foreach (var field in fields)
        {
            Assert.True(errors.TryGetProperty(field, out _), $"no error for '{field}' in {errors}");
        }
    }
}
