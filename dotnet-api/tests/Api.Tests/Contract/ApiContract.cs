using System.Net;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Api.Data;
using Api.Tests.Infrastructure;

namespace Api.Tests.Contract;

// Every endpoint, the same assertions for each database provider (see the subclasses).
public abstract class ApiContract(ApiFactory factory, DatabaseProvider expected)
{
    private readonly HttpClient _http = factory.CreateClient();

    private static string NewSku() => "T-" + Guid.NewGuid().ToString("N")[..12];

    private static StringContent Json(string raw) => new(raw, Encoding.UTF8, "application/json");

    private async Task<JsonElement> CreateAsync(string? name = null, decimal price = 12.5m, string? sku = null)
    {
        var response = await _http.PostAsJsonAsync("/products", new { sku = sku ?? NewSku(), name = name ?? "Test product", price });
        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        return await response.Content.ReadFromJsonAsync<JsonElement>();
    }

    [Fact]
    public void Runs_on_the_expected_provider() => Assert.Equal(expected, factory.ActiveProvider());

    [Fact]
    public async Task Api_reports_host_process_and_thread_pool()
    {
        var json = await _http.GetFromJsonAsync<JsonElement>("/api");
        Assert.False(string.IsNullOrEmpty(json.GetProperty("hostname").GetString()));
        Assert.Equal(Environment.ProcessId, json.GetProperty("pid").GetInt32());
        Assert.Equal(Environment.ProcessorCount, json.GetProperty("processorCount").GetInt32());
        Assert.True(json.GetProperty("threadPool").GetProperty("threads").GetInt32() >= 1);
        // A number here; what it counts is checked in Lifecycle/ProcessTests (a pool kept busy on purpose).
        Assert.Equal(JsonValueKind.Number, json.GetProperty("threadPool").GetProperty("pendingWorkItems").ValueKind);
    }

    [Fact]
    public async Task Database_reports_its_provider_and_server_version()
    {
        var json = await _http.GetFromJsonAsync<JsonElement>("/api/database");
        var provider = json.GetProperty("provider").GetString() ?? "";
        Assert.Contains(expected switch { DatabaseProvider.Sqlite => "Sqlite", DatabaseProvider.Postgres => "Npgsql", _ => "SqlServer" }, provider);
        // A version string from the server itself (e.g. PostgreSQL's "18.1"), not a constant of the app.
        Assert.Matches(@"^\d+\.\d+", json.GetProperty("serverVersion").GetString() ?? "");
    }

    [Fact]
    public async Task Pi_estimates_pi()
    {
        var json = await _http.GetFromJsonAsync<JsonElement>("/pi?samples=200000");
        Assert.Equal(200000, json.GetProperty("samples").GetInt32());
        Assert.InRange(json.GetProperty("pi").GetDouble(), 3.0, 3.3);
    }

    [Theory]
    [InlineData("/delay?ms=20", false)]
    [InlineData("/delay/blocking?ms=20", true)]
    public async Task Delay_answers_after_the_wait(string url, bool blocking)
    {
        var json = await _http.GetFromJsonAsync<JsonElement>(url);
        Assert.Equal(20, json.GetProperty("delayedMs").GetInt32());
        Assert.Equal(blocking, json.GetProperty("blocking").GetBoolean());
    }

    [Theory]
    [InlineData("/pi?samples=0", "samples")]
    [InlineData("/pi?samples=abc", "samples")]
    [InlineData("/pi?samples=10000001", "samples")]
    [InlineData("/pi?samples=-5", "samples")]
    [InlineData("/delay?ms=-1", "ms")]
    [InlineData("/delay?ms=5001", "ms")]
    [InlineData("/delay?ms=1e3", "ms")]
    [InlineData("/delay/blocking?ms=x", "ms")]
    [InlineData("/products?pageSize=0", "pageSize")]
    [InlineData("/products?pageSize=501", "pageSize")]
    [InlineData("/products?page=0", "page")]
    [InlineData("/products?page=abc&pageSize=-1", "page")]
    [InlineData("/products/abc", "id")]
    [InlineData("/products/0", "id")]
    [InlineData("/products/-3", "id")]
    [InlineData("/products/99999999999", "id")]
    [InlineData("/products/1.5", "id")]
    public async Task Bad_query_or_route_values_are_400_naming_the_field(string url, string field) =>
        await ProblemAssert.HasFieldErrors(await _http.GetAsync(url), field);

    [Theory]
    [InlineData("/health/live")]
    [InlineData("/health/ready")]
    public async Task Health_endpoints_are_up(string url)
    {
        var response = await _http.GetAsync(url);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("Healthy", await response.Content.ReadAsStringAsync());
    }

    [Fact]
    public async Task Products_lists_the_seed_in_bounded_pages()
    {
        var first = await _http.GetFromJsonAsync<JsonElement>("/products");
        Assert.Equal(100, first.GetProperty("pageSize").GetInt32());
        var items = first.GetProperty("items");
        Assert.Equal(100, items.GetArrayLength());
        Assert.Equal("SKU-0001", items[0].GetProperty("sku").GetString());

        var page = await _http.GetFromJsonAsync<JsonElement>("/products?page=2&pageSize=10");
        var ids = page.GetProperty("items").EnumerateArray().Select(i => i.GetProperty("id").GetInt32()).ToArray();
        Assert.Equal(Enumerable.Range(11, 10), ids);

        var beyond = await _http.GetFromJsonAsync<JsonElement>("/products?page=100000&pageSize=500");
        Assert.Equal(0, beyond.GetProperty("items").GetArrayLength());
    }

    [Fact]
    public async Task Get_by_id_returns_the_product_or_404()
    {
        var product = await _http.GetFromJsonAsync<JsonElement>("/products/5");
        Assert.Equal("SKU-0005", product.GetProperty("sku").GetString());
        await ProblemAssert.IsProblem(await _http.GetAsync("/products/987654"), HttpStatusCode.NotFound);
    }

    [Fact]
    public async Task Post_creates_and_get_reads_it_back()
    {
        var sku = NewSku();
        var response = await _http.PostAsJsonAsync("/products", new { sku, name = "Café ☕ «quoted»", description = "d", price = 19.99m });
        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        var created = await response.Content.ReadFromJsonAsync<JsonElement>();
        var id = created.GetProperty("id").GetInt32();
        Assert.Equal($"/products/{id}", response.Headers.Location?.OriginalString);

        var read = await _http.GetFromJsonAsync<JsonElement>($"/products/{id}");
        Assert.Equal(sku, read.GetProperty("sku").GetString());
        Assert.Equal("Café ☕ «quoted»", read.GetProperty("name").GetString());
        Assert.Equal(19.99m, read.GetProperty("price").GetDecimal());
        Assert.Equal(0, read.GetProperty("version").GetInt32());
    }

    [Theory]
    [InlineData("'); DROP TABLE Products;--")]
    [InlineData("Robert'); DELETE FROM \"Products\" WHERE 1=1;--")]
    [InlineData("1 OR 1=1")]
    [InlineData("<script>alert(1)</script>")]
    public async Task Hostile_strings_are_stored_and_returned_literally(string hostile)
    {
        var response = await _http.PostAsJsonAsync("/products", new { sku = NewSku(), name = hostile, description = hostile, price = 1m });
        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        var id = (await response.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("id").GetInt32();

        var read = await _http.GetFromJsonAsync<JsonElement>($"/products/{id}");
        Assert.Equal(hostile, read.GetProperty("name").GetString());
        Assert.Equal(hostile, read.GetProperty("description").GetString());
        // The table and the seed are still there.
        var list = await _http.GetFromJsonAsync<JsonElement>("/products?pageSize=5");
        Assert.Equal("SKU-0001", list.GetProperty("items")[0].GetProperty("sku").GetString());
    }

    [Theory]
    [InlineData("{\"sku\":\"\",\"name\":\"n\",\"price\":1}", "sku")]
    [InlineData("{\"sku\":\"  \",\"name\":\"n\",\"price\":1}", "sku")]
    [InlineData("{\"name\":\"n\",\"price\":1,\"requestId\":\"\"}", "requestId")]
    [InlineData("{\"name\":\"n\",\"price\":1,\"requestId\":\"has space\"}", "requestId")]
    [InlineData("{\"name\":\"n\",\"price\":1,\"requestId\":\"quote'\"}", "requestId")]
    [InlineData("{\"name\":\"n\",\"price\":1,\"requestId\":\"0123456789012345678901234567890123456789012345678901234567890123x\"}", "requestId")]
    [InlineData("{\"sku\":\"s\",\"price\":1}", "name")]
    [InlineData("{\"sku\":\"s\",\"name\":\"   \",\"price\":1}", "name")]
    [InlineData("{\"sku\":\"s\",\"name\":\"n\"}", "price")]
    [InlineData("{\"sku\":\"s\",\"name\":\"n\",\"price\":-0.01}", "price")]
    [InlineData("{\"sku\":\"s\",\"name\":\"n\",\"price\":1000000001}", "price")]
    [InlineData("{\"sku\":\"s\",\"name\":\"n\",\"price\":1.234}", "price")]
    [InlineData("{}", "name")]
    public async Task Invalid_products_are_400_naming_the_fields(string body, string field) =>
        await ProblemAssert.HasFieldErrors(await _http.PostAsync("/products", Json(body)), field);

    [Fact]
    public async Task Over_long_fields_are_400_naming_each_field()
    {
        var body = JsonSerializer.Serialize(new
        {
            sku = new string('s', AppDbContext.SkuMaxLength + 1),
            name = new string('n', AppDbContext.NameMaxLength + 1),
            description = new string('d', AppDbContext.DescriptionMaxLength + 1),
            price = 1,
        });
        await ProblemAssert.HasFieldErrors(await _http.PostAsync("/products", Json(body)), "sku", "name", "description");
    }

    [Theory]
    [InlineData("{")]
    [InlineData("{\"sku\":")]
    [InlineData("[1,2]")]
    [InlineData("\"just a string\"")]
    [InlineData("{\"sku\":\"s\",\"name\":\"n\",\"price\":\"abc\"}")]
    [InlineData("{\"sku\":\"s\",\"name\":\"n\",\"price\":1e400}")]
    [InlineData("{\"sku\":{\"$ne\":null},\"name\":\"n\",\"price\":1}")]
    [InlineData("{\"sku\":\"s\",\"name\":\"n\",\"price\":1,\"requestId\":42}")]
    [InlineData("{\"sku\":\"s\",\"name\":\"n\",\"price\":1,\"requestId\":[\"a\"]}")]
    [InlineData("null")]
    [InlineData("")]
    public async Task Malformed_json_is_400(string body)
    {
        await ProblemAssert.IsProblem(await _http.PostAsync("/products", Json(body)), HttpStatusCode.BadRequest);
        await ProblemAssert.IsProblem(await _http.PutAsync("/products/1", Json(body)), HttpStatusCode.BadRequest);
    }

    [Fact]
    public async Task Wrong_content_type_is_415_and_wrong_method_is_405()
    {
        var text = new StringContent("{\"sku\":\"s\"}", Encoding.UTF8, "text/plain");
        await ProblemAssert.IsProblem(await _http.PostAsync("/products", text), HttpStatusCode.UnsupportedMediaType);
        await ProblemAssert.IsProblem(await _http.PostAsync("/api", Json("{}")), HttpStatusCode.MethodNotAllowed);
    }

    [Fact]
    public async Task Post_without_sku_gets_a_generated_one_and_keeps_the_request_id()
    {
        var requestId = "drill-" + Guid.NewGuid().ToString("N");
        var response = await _http.PostAsJsonAsync("/products", new { name = "drill", price = 1m, requestId });
        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        var created = await response.Content.ReadFromJsonAsync<JsonElement>();
        Assert.StartsWith("P-", created.GetProperty("sku").GetString());
        Assert.Equal(requestId, created.GetProperty("requestId").GetString());
        var read = await _http.GetFromJsonAsync<JsonElement>($"/products/{created.GetProperty("id").GetInt32()}");
        Assert.Equal(requestId, read.GetProperty("requestId").GetString());
    }

    // What the drills count: the request id is not unique, so the same POST sent twice is two rows.
    [Fact]
    public async Task The_same_request_id_twice_is_stored_twice()
    {
        var requestId = "replay-" + Guid.NewGuid().ToString("N");
        var ids = new List<int>();
        for (var i = 0; i < 2; i++)
        {
            var response = await _http.PostAsJsonAsync("/products", new { name = "replayed", price = 1m, requestId });
            Assert.Equal(HttpStatusCode.Created, response.StatusCode);
            ids.Add((await response.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("id").GetInt32());
        }
        Assert.NotEqual(ids[0], ids[1]);
        foreach (var id in ids)
        {
            var read = await _http.GetFromJsonAsync<JsonElement>($"/products/{id}");
            Assert.Equal(requestId, read.GetProperty("requestId").GetString());
        }
    }

    [Fact]
    public async Task Put_needs_a_sku_and_leaves_the_request_id_alone()
    {
        var response = await _http.PostAsJsonAsync("/products", new { name = "kept", price = 1m, requestId = "keep-me" });
        var id = (await response.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("id").GetInt32();
        await ProblemAssert.HasFieldErrors(await _http.PutAsJsonAsync($"/products/{id}", new { name = "x", price = 1m }), "sku");
        var put = await _http.PutAsJsonAsync($"/products/{id}", new { sku = NewSku(), name = "x", price = 1m, requestId = "other" });
        Assert.Equal(HttpStatusCode.OK, put.StatusCode);
        Assert.Equal("keep-me", (await put.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("requestId").GetString());
    }

    [Fact]
    public async Task Duplicate_sku_is_409()
    {
        var sku = NewSku();
        await CreateAsync(sku: sku);
        var response = await _http.PostAsJsonAsync("/products", new { sku, name = "again", price = 1m });
        await ProblemAssert.IsProblem(response, HttpStatusCode.Conflict);
    }

    [Fact]
    public async Task Put_updates_and_bumps_the_version()
    {
        var created = await CreateAsync();
        var id = created.GetProperty("id").GetInt32();
        var sku = created.GetProperty("sku").GetString();

        var response = await _http.PutAsJsonAsync($"/products/{id}", new { sku, name = "Renamed", price = 3m, version = 0 });
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var read = await _http.GetFromJsonAsync<JsonElement>($"/products/{id}");
        Assert.Equal("Renamed", read.GetProperty("name").GetString());
        Assert.Equal(1, read.GetProperty("version").GetInt32());

        // Without a version: last write wins, still bumps it.
        response = await _http.PutAsJsonAsync($"/products/{id}", new { sku, name = "Again", price = 4m });
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(2, (await response.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("version").GetInt32());
    }

    [Fact]
    public async Task Put_with_a_stale_version_is_409_and_changes_nothing()
    {
        var created = await CreateAsync(name: "Original");
        var id = created.GetProperty("id").GetInt32();
        var sku = created.GetProperty("sku").GetString();
        Assert.Equal(HttpStatusCode.OK, (await _http.PutAsJsonAsync($"/products/{id}", new { sku, name = "First", price = 1m, version = 0 })).StatusCode);

        var stale = await _http.PutAsJsonAsync($"/products/{id}", new { sku, name = "Second", price = 1m, version = 0 });
        await ProblemAssert.IsProblem(stale, HttpStatusCode.Conflict);
        var read = await _http.GetFromJsonAsync<JsonElement>($"/products/{id}");
        Assert.Equal("First", read.GetProperty("name").GetString());
    }

    [Fact]
    public async Task Put_to_another_products_sku_is_409()
    {
        var a = await CreateAsync();
        var b = await CreateAsync();
        var response = await _http.PutAsJsonAsync($"/products/{b.GetProperty("id").GetInt32()}",
            new { sku = a.GetProperty("sku").GetString(), name = "x", price = 1m });
        await ProblemAssert.IsProblem(response, HttpStatusCode.Conflict);
    }

    [Fact]
    public async Task Put_unknown_is_404_and_invalid_is_400()
    {
        await ProblemAssert.IsProblem(
            await _http.PutAsJsonAsync("/products/987654", new { sku = NewSku(), name = "x", price = 1m }), HttpStatusCode.NotFound);
        await ProblemAssert.HasFieldErrors(
            await _http.PutAsJsonAsync("/products/1", new { sku = "SKU-0001", name = "", price = -1m }), "name", "price");
    }

    [Fact]
    public async Task Delete_removes_then_404()
    {
        var id = (await CreateAsync()).GetProperty("id").GetInt32();
        Assert.Equal(HttpStatusCode.NoContent, (await _http.DeleteAsync($"/products/{id}")).StatusCode);
        await ProblemAssert.IsProblem(await _http.GetAsync($"/products/{id}"), HttpStatusCode.NotFound);
        await ProblemAssert.IsProblem(await _http.DeleteAsync($"/products/{id}"), HttpStatusCode.NotFound);
        await ProblemAssert.HasFieldErrors(await _http.DeleteAsync("/products/zero"), "id");
    }

    [Fact]
    public async Task Echo_answers_201_with_the_parsed_body()
    {
        var response = await _http.PostAsync("/echo", Json("{\"order\":42,\"items\":[\"a\",\"b\"],\"note\":\"café ☕\"}"));
        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        Assert.Null(response.Headers.Location);
        var json = await response.Content.ReadFromJsonAsync<JsonElement>();
        Assert.Equal(Environment.ProcessId, json.GetProperty("pid").GetInt32());
        Assert.Equal(42, json.GetProperty("echo").GetProperty("order").GetInt32());
        Assert.Equal("café ☕", json.GetProperty("echo").GetProperty("note").GetString());
        Assert.Equal(2, json.GetProperty("echo").GetProperty("items").GetArrayLength());
    }

    [Theory]
    [InlineData("{\"order\":")]
    [InlineData("")]
    [InlineData("{\"a\":1}}")]
    public async Task Echo_with_malformed_json_is_400(string body) =>
        await ProblemAssert.IsProblem(await _http.PostAsync("/echo", Json(body)), HttpStatusCode.BadRequest);

    [Fact]
    public async Task Echo_needs_json_and_post()
    {
        await ProblemAssert.IsProblem(await _http.PostAsync("/echo", new StringContent("{}", Encoding.UTF8, "text/plain")), HttpStatusCode.UnsupportedMediaType);
        await ProblemAssert.IsProblem(await _http.GetAsync("/echo"), HttpStatusCode.MethodNotAllowed);
    }

    [Fact]
    public async Task Unknown_route_is_a_404_problem() =>
        await ProblemAssert.IsProblem(await _http.GetAsync("/no-such-thing"), HttpStatusCode.NotFound);
}

public sealed class SqliteApiTests(SqliteApi api) : ApiContract(api.Factory, DatabaseProvider.Sqlite), IClassFixture<SqliteApi>;

[Collection("postgres")]
public sealed class PostgresApiTests(PostgresApi api) : ApiContract(api.Factory, DatabaseProvider.Postgres);
