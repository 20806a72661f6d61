using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Api.Tests.Infrastructure;

namespace Api.Tests.Lifecycle;

// The published shape of the app: a real process, real Kestrel, real signals.
public sealed class ProcessTests
{
    [Fact]
    public async Task Sigterm_lets_in_flight_requests_finish_then_exits_0()
    {
        await using var api = await ApiProcess.StartAsync();
        var inFlight = Enumerable.Range(0, 3).Select(_ => api.Http.GetAsync("/delay?ms=2500")).ToArray();
        // Give the requests time to reach Kestrel before the signal (not an assertion on speed).
        await Task.Delay(800);
        api.Terminate();

        foreach (var response in await Task.WhenAll(inFlight))
        {
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            var json = await response.Content.ReadFromJsonAsync<JsonElement>();
            Assert.Equal(2500, json.GetProperty("delayedMs").GetInt32());
        }
        Assert.Equal(0, await api.WaitForExitAsync(TimeSpan.FromSeconds(30)));
        await Assert.ThrowsAsync<HttpRequestException>(() => api.Http.GetAsync("/api"));
    }

    [Fact]
    public async Task Listens_on_loopback_port_and_reports_runtime_settings()
    {
        await using var api = await ApiProcess.StartAsync(new() { ["Runtime__MinWorkerThreads"] = "37", ["INSTANCE_NAME"] = "dotnet-api-app-7" });
        var json = await api.Http.GetFromJsonAsync<JsonElement>("/api");
        Assert.Equal("dotnet-api-app-7", json.GetProperty("hostname").GetString());
        Assert.Equal(api.Pid, json.GetProperty("pid").GetInt32());
        Assert.Equal(37, json.GetProperty("threadPool").GetProperty("minWorkerThreads").GetInt32());
        Assert.Equal("workstation", json.GetProperty("gc").GetString());
    }

    [Fact]
    public void Migrate_is_repeatable_and_seeds_once()
    {
        var dir = Directory.CreateTempSubdirectory("dotnet-api-migrate-").FullName;
        try
        {
            var first = ApiProcess.Migrate(dir);
            Assert.True(first.Code == 0, first.Output);
            Assert.Contains("Seeded 100 new products", first.Output);
            var second = ApiProcess.Migrate(dir);
            Assert.True(second.Code == 0, second.Output);
            Assert.Contains("Seeded 0 new products", second.Output);
        }
        finally { Directory.Delete(dir, recursive: true); }
    }

    [Fact]
    public void Migrate_without_a_seed_file_fails_with_a_clear_message()
    {
        var dir = Directory.CreateTempSubdirectory("dotnet-api-migrate-").FullName;
        try
        {
            var env = ApiProcess.Env(dir);
            env["Seed__ProductsFile"] = Path.Combine(dir, "missing.json");
            var (code, output) = Shell.Run("dotnet", [Paths.ApiDll, "migrate"], TimeSpan.FromSeconds(60), env);
            Assert.Equal(1, code);
            Assert.Contains("Seed file not found", output);
        }
        finally { Directory.Delete(dir, recursive: true); }
    }

    [Fact]
    public async Task Healthcheck_mode_exits_0_when_up_and_1_when_down()
    {
        await using var api = await ApiProcess.StartAsync();
        var up = Shell.Run("dotnet", [Paths.ApiDll, "--healthcheck", $"http://127.0.0.1:{api.Port}/health/ready"], TimeSpan.FromSeconds(30));
        Assert.Equal(0, up.Code);
        var down = Shell.Run("dotnet", [Paths.ApiDll, "--healthcheck", $"http://127.0.0.1:{FreePort.Next()}/health/live"], TimeSpan.FromSeconds(30));
        Assert.Equal(1, down.Code);
    }

    [Theory]
    [InlineData("PORT", "notaport", "PORT must be")]
    [InlineData("Database__Provider", "oracle", "Database:Provider 'oracle'")]
    [InlineData("Runtime__MinWorkerThreads", "-4", "Runtime:MinWorkerThreads must be")]
    [InlineData("Runtime__MinWorkerThreads", "lots", "Runtime:MinWorkerThreads")]
    [InlineData("Shutdown__TimeoutSeconds", "-1", "Shutdown:TimeoutSeconds must be")]
    public void Bad_configuration_stops_at_start_up_with_a_message(string key, string value, string message)
    {
        var dir = Directory.CreateTempSubdirectory("dotnet-api-conf-").FullName;
        try
        {
            var env = ApiProcess.Env(dir);
            env["PORT"] = FreePort.Next().ToString();
            env[key] = value;
            var (code, output) = Shell.Run("dotnet", [Paths.ApiDll], TimeSpan.FromSeconds(30), env);
            Assert.Equal(2, code);
            Assert.Contains(message, output);
            Assert.DoesNotContain("   at ", output);
        }
        finally { Directory.Delete(dir, recursive: true); }
    }
}
