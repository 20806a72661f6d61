using System.Net;
using Api.Tests.Infrastructure;

namespace Api.Tests.Contract;

// A database that cannot be opened: the process stays up, readiness says so, data endpoints
// answer 503 (retry later) — not 500.
public sealed class DatabaseDownTests : IAsyncLifetime
{
    private readonly ApiFactory _factory = new("Sqlite", "Data Source=/nonexistent-dotnet-api-dir/products.db;Mode=ReadWrite");

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync() => await _factory.DisposeAsync();

    [Fact]
    public async Task Ready_is_503_live_is_200_and_data_endpoints_are_503_problems()
    {
        var http = _factory.CreateClient();
        Assert.Equal(HttpStatusCode.OK, (await http.GetAsync("/health/live")).StatusCode);
        Assert.Equal(HttpStatusCode.OK, (await http.GetAsync("/api")).StatusCode);
        Assert.Equal(HttpStatusCode.ServiceUnavailable, (await http.GetAsync("/health/ready")).StatusCode);
        await ProblemAssert.IsProblem(await http.GetAsync("/products"), HttpStatusCode.ServiceUnavailable);
        await ProblemAssert.IsProblem(await http.GetAsync("/products/1"), HttpStatusCode.ServiceUnavailable);
        await ProblemAssert.IsProblem(
            await http.PostAsync("/products", new StringContent("{\"sku\":\"s\",\"name\":\"n\",\"price\":1}", System.Text.Encoding.UTF8, "application/json")),
            HttpStatusCode.ServiceUnavailable);
    }
}
