using System.Net;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Api.Tests.Infrastructure;

namespace Api.Tests.Topology;

// compose.yaml as the local runner runs it: a real PostgreSQL server (standing in for SQL Server)
// → migrator (one-shot, as the superuser; creates the app's login) → 2 replicas connected as that
// login → the real nginx with the sample's nginx/ config.
public sealed class Topology : IAsyncLifetime
{
    public Runner Runner { get; private set; } = null!;
    public HttpClient Http { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        Runner = await Runner.UpAsync(ApiProcess.LogRequests, "--replicas", "2", "--cpus", "1");
        Http = new HttpClient { BaseAddress = new Uri(Runner.Url), Timeout = TimeSpan.FromSeconds(30) };
    }

    public async Task DisposeAsync()
    {
        var pids = Runner.Pids("app").Concat(Runner.Pids("nginx")).Concat(Runner.Pids("sqlserver")).ToList();
        Http.Dispose();
        await Runner.DisposeAsync();
        // `down` leaves nothing running, PostgreSQL included (a zombie waiting for init to reap it counts as gone).
        Assert.All(pids, pid => Assert.False(Shell.IsRunning(pid), $"pid {pid} still running"));
    }
}

public sealed class ThroughNginxTests(Topology topology) : IClassFixture<Topology>
{
    private readonly HttpClient _http = topology.Http;

    [Fact]
    public async Task Both_replicas_answer_behind_nginx_and_share_the_migrated_database()
    {
        var hosts = new HashSet<string>();
        for (var i = 0; i < 20 && hosts.Count < 2; i++)
        {
            var json = await _http.GetFromJsonAsync<JsonElement>("/api");
            hosts.Add(json.GetProperty("hostname").GetString()!);
        }
        Assert.Equal(["dotnet-api-app-1", "dotnet-api-app-2"], hosts.Order());

        var products = await _http.GetFromJsonAsync<JsonElement>("/products");
        Assert.Equal(100, products.GetProperty("items").GetArrayLength());

        // Written through one replica, read through any: one database behind both.
        var created = await _http.PostAsJsonAsync("/products", new { sku = "NGINX-" + Guid.NewGuid().ToString("N")[..8], name = "'); DROP TABLE Products;--", price = 2m });
        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        var id = (await created.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("id").GetInt32();
        for (var i = 0; i < 4; i++)
        {
            var read = await _http.GetFromJsonAsync<JsonElement>($"/products/{id}");
            Assert.Equal("'); DROP TABLE Products;--", read.GetProperty("name").GetString());
        }
    }

    [Theory]
    [InlineData("GET", "/products/abc", null, 400)]
    [InlineData("GET", "/products/987654", null, 404)]
    [InlineData("GET", "/pi?samples=lots", null, 400)]
    [InlineData("POST", "/products", "{\"sku\":", 400)]
    [InlineData("POST", "/products", "{\"sku\":\"SKU-0001\",\"name\":\"dup\",\"price\":1}", 409)]
    [InlineData("PUT", "/products/1", "{\"sku\":\"SKU-0001\",\"name\":\"\",\"price\":-1}", 400)]
    public async Task Bad_input_through_nginx_is_a_4xx_problem(string method, string url, string? body, int status)
    {
        using var request = new HttpRequestMessage(new HttpMethod(method), url);
        if (body is not null) request.Content = new StringContent(body, Encoding.UTF8, "application/json");
        await ProblemAssert.IsProblem(await _http.SendAsync(request), (HttpStatusCode)status);
    }

    [Fact]
    public void The_replicas_run_on_postgres_as_the_least_privilege_login()
    {
        var migrator = File.ReadAllText(topology.Runner.State.GetProperty("services").GetProperty("migrator")
            .GetProperty("instances")[0].GetProperty("log").GetString()!);
        Assert.Contains("Migrations applied (Npgsql.EntityFrameworkCore.PostgreSQL)", migrator);
        Assert.Contains("Login products_app ready", migrator);
        Assert.Equal(JsonValueKind.Number, topology.Runner.State.GetProperty("services").GetProperty("sqlserver")
            .GetProperty("instances")[0].GetProperty("pid").ValueKind);
    }

    [Fact]
    public async Task Sigterm_to_a_replica_under_requests_fails_none()
    {
        // /delay requests spread over both replicas; one replica gets SIGTERM once the replicas have
        // logged all eight as started.
        var inFlight = Enumerable.Range(0, 8).Select(_ => _http.GetAsync("/delay?ms=1500")).ToArray();
        try
        {
            await topology.Runner.WaitForLogAsync("app", 8, TimeSpan.FromSeconds(20), "Request starting", "/delay?ms=1500");
            var (code, output) = topology.Runner.Lab_(["term", "app", "1"], 30);
            Assert.True(code == 0, output);
            foreach (var response in await Task.WhenAll(inFlight)) Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            // The other replica keeps serving.
            for (var i = 0; i < 5; i++) Assert.Equal(HttpStatusCode.OK, (await _http.GetAsync("/api")).StatusCode);
        }
        finally
        {
            var (code, output) = topology.Runner.Lab_(["restart", "app", "1"], 60);
            Assert.True(code == 0, output);
        }
    }
}

// DB=sqlite: no database server; the migrator and the replica share one SQLite file.
public sealed class SqliteVariantTests
{
    [Fact]
    public async Task DB_sqlite_runs_without_a_database_server()
    {
        await using var runner = await Runner.UpAsync(new Dictionary<string, string> { ["DB"] = "sqlite" }, "--replicas", "1");
        Assert.True(runner.State.GetProperty("services").GetProperty("sqlserver").TryGetProperty("skipped", out _));
        using var http = new HttpClient { BaseAddress = new Uri(runner.Url), Timeout = TimeSpan.FromSeconds(30) };
        var products = await http.GetFromJsonAsync<JsonElement>("/products");
        Assert.Equal(100, products.GetProperty("items").GetArrayLength());
        var migrator = File.ReadAllText(runner.State.GetProperty("services").GetProperty("migrator")
            .GetProperty("instances")[0].GetProperty("log").GetString()!);
        Assert.Contains("Migrations applied (Microsoft.EntityFrameworkCore.Sqlite)", migrator);
    }
}
