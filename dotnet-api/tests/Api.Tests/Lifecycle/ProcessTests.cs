using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
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
        await using var api = await ApiProcess.StartAsync(ApiProcess.LogRequests);
        var inFlight = Enumerable.Range(0, 3).Select(_ => api.Http.GetAsync("/delay?ms=2500")).ToArray();
        // The signal goes once Kestrel has logged all three requests as started.
        await api.WaitForOutputAsync("Request starting HTTP/1.1 GET http://127.0.0.1:" + api.Port + "/delay?ms=2500", 3, TimeSpan.FromSeconds(20));
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

    // A stop from outside with Shutdown__DrainDelaySeconds (compose): the process serves on for the
    // delay — reads and writes — saying not ready, keeping its connections (nginx goes on with the
    // ones it keeps rather than open new ones a closing listener would reset), then exits 0.
    [Fact]
    public async Task Sigterm_with_a_drain_delay_serves_on_not_ready_then_exits_0()
    {
        await using var api = await ApiProcess.StartAsync(new() { ["Shutdown__DrainDelaySeconds"] = "3" });
        var stopwatch = Stopwatch.StartNew();
        api.Terminate();
        await api.WaitForOutputAsync("not ready, serving on for 3 s", 1, TimeSpan.FromSeconds(10));
        var rounds = 0;
        while (stopwatch.Elapsed < TimeSpan.FromSeconds(2))
        {
            using var fresh = new HttpClient { BaseAddress = api.Http.BaseAddress };
            var ready = await fresh.GetAsync("/health/ready");
            Assert.Equal(HttpStatusCode.ServiceUnavailable, ready.StatusCode);
            var read = await fresh.GetAsync("/api");
            Assert.Equal(HttpStatusCode.OK, read.StatusCode);
            Assert.DoesNotContain("close", read.Headers.Connection);
            var write = await fresh.PostAsJsonAsync("/products", new { name = "during drain", price = 1m, requestId = $"drain-{rounds}" });
            Assert.Equal(HttpStatusCode.Created, write.StatusCode);
            rounds++;
        }
        Assert.True(rounds >= 3, $"served on during the delay ({rounds} rounds)");
        Assert.Equal(0, await api.WaitForExitAsync(TimeSpan.FromSeconds(30)));
        Assert.True(stopwatch.Elapsed >= TimeSpan.FromSeconds(3), $"exited only after the delay ({stopwatch.Elapsed})");
    }

    // Behind a DNS name (a drain delay), after the delay the process stops listening and stays up a
    // moment refusing (DrainOnStop.Linger): nginx marks it failed before its address goes.
    [Fact]
    public async Task After_the_drain_delay_connections_are_refused_while_the_process_stays_up()
    {
        await using var api = await ApiProcess.StartAsync(new() { ["Shutdown__DrainDelaySeconds"] = "1" });
        api.Terminate();
        await api.WaitForOutputAsync("not ready, serving on for 1 s", 1, TimeSpan.FromSeconds(10));
        bool? refusedWhileUp = null;
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(20);
        while (refusedWhileUp is null && !api.HasExited && DateTime.UtcNow < deadline)
        {
            using var client = new TcpClient();
            try
            {
                await client.ConnectAsync(IPAddress.Loopback, api.Port);
                await Task.Delay(20);
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused)
            {
                refusedWhileUp = !api.HasExited;
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
            {
                // Queued in the listener's backlog at the moment it closed: reset, neither served nor
                // refused (make test on a fresh clone, 2026-12-05). The next one finds it closed.
            }
        }
        Assert.True(refusedWhileUp, "a connection refused while the process was still up");
        Assert.Equal(0, await api.WaitForExitAsync(TimeSpan.FromSeconds(30)));
    }

    // After the delay the process stops accepting but answers on the connections already open (each
    // answer closing its connection): Kestrel's own stop, which closes every idle connection, comes
    // only after Linger, so nginx never has a request cut on a connection it has just opened.
    [Fact]
    public async Task After_the_drain_delay_an_open_connection_is_still_answered_while_new_ones_are_refused()
    {
        await using var api = await ApiProcess.StartAsync(new() { ["Shutdown__DrainDelaySeconds"] = "1" });
        using var pooled = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = 1, PooledConnectionIdleTimeout = TimeSpan.FromMinutes(1) })
        {
            BaseAddress = api.Http.BaseAddress,
        };
        Assert.Equal(HttpStatusCode.OK, (await pooled.GetAsync("/api")).StatusCode);
        api.Terminate();
        await api.WaitForOutputAsync("not ready, serving on for 1 s", 1, TimeSpan.FromSeconds(10));
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(20);
        var refused = false;
        while (!refused && !api.HasExited && DateTime.UtcNow < deadline)
        {
            using var client = new TcpClient();
            try
            {
                await client.ConnectAsync(IPAddress.Loopback, api.Port);
                await Task.Delay(10);
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused)
            {
                refused = true;
            }
        }
        Assert.True(refused, "new connections refused before the exit");
        var answer = await pooled.GetAsync("/api");
        Assert.Equal(HttpStatusCode.OK, answer.StatusCode);
        Assert.Contains("close", answer.Headers.Connection);
        Assert.Equal(0, await api.WaitForExitAsync(TimeSpan.FromSeconds(30)));
    }

    // A new replica pays for its first query and insert before it listens (Hosting/WarmUp.cs), and
    // keeps nothing of the insert.
    [Fact]
    public async Task Warms_up_the_products_query_and_insert_before_listening_and_keeps_no_row()
    {
        await using var api = await ApiProcess.StartAsync();
        var warmed = api.LineOf("Warmed up in");
        Assert.True(warmed >= 0, "the warm-up ran");
        Assert.True(warmed < api.LineOf("Now listening on"), "before Kestrel listened");
        var page = await api.Http.GetFromJsonAsync<JsonElement>("/products?pageSize=500");
        Assert.DoesNotContain(page.GetProperty("items").EnumerateArray(), p => p.GetProperty("name").GetString() == "warm-up");
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
    public async Task Pending_work_items_count_requests_waiting_for_a_pool_thread()
    {
        // At most two pool threads (DOTNET_* numbers are hex), kept busy by CPU-bound /pi requests:
        // whatever arrives meanwhile waits in the pool's queue, and /api, once it runs, reports it.
        await using var api = await ApiProcess.StartAsync(new() { ["DOTNET_ThreadPool_ForceMaxWorkerThreads"] = "2" });
        using var stop = new CancellationTokenSource();
        var load = Enumerable.Range(0, 6).Select(async _ =>
        {
            while (!stop.IsCancellationRequested)
            {
                try { (await api.Http.GetAsync("/pi?samples=5000000", stop.Token)).EnsureSuccessStatusCode(); }
                catch (OperationCanceledException) when (stop.IsCancellationRequested) { }
            }
        }).ToArray();
        try
        {
            var seen = new List<long>();
            for (var i = 0; i < 10 && !seen.Any(p => p > 0); i++)
            {
                var json = await api.Http.GetFromJsonAsync<JsonElement>("/api");
                seen.Add(json.GetProperty("threadPool").GetProperty("pendingWorkItems").GetInt64());
                Assert.InRange(json.GetProperty("threadPool").GetProperty("threads").GetInt32(), 1, 2);
            }
            Assert.True(seen.Any(p => p > 0), $"pendingWorkItems stayed 0 while both threads were busy: {string.Join(", ", seen)}");
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(load);
        }
    }

    [Fact]
    public void A_database_server_password_file_that_is_missing_stops_start_up_with_one_line()
    {
        var dir = Directory.CreateTempSubdirectory("dotnet-api-conf-").FullName;
        try
        {
            var env = ApiProcess.Env(dir);
            env["PORT"] = FreePort.Next().ToString();
            env["Database__Provider"] = "Postgres";
            env["ConnectionStrings__Default"] = "Host=127.0.0.1;Port=1;Username=products_app;Database=products";
            env["DB_PASSWORD_FILE"] = Path.Combine(dir, "missing.txt");
            var (code, output) = Shell.Run("dotnet", [Paths.ApiDll], TimeSpan.FromSeconds(30), env);
            Assert.Equal(2, code);
            Assert.Equal($"DB_PASSWORD_FILE={Path.Combine(dir, "missing.txt")} cannot be read", output.Trim().Split(':')[0]);
            Assert.Single(output.Trim().Split('\n'));
        }
        finally { Directory.Delete(dir, recursive: true); }
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
            // The cause is the last line (what the runner shows when the one-shot migrator fails).
            Assert.StartsWith("migrate failed: Seed file not found", output.TrimEnd().Split('\n')[^1]);
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
    [InlineData("Shutdown__DrainDelaySeconds", "20", "Shutdown:DrainDelaySeconds must be")]
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
