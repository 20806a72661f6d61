using System.Globalization;
using System.Net;
using Api.Tests.Infrastructure;

namespace Api.Tests.Lifecycle;

// /metrics on METRICS_PORT, a real process: requests by route and status, the thread pool and
// Kestrel's connections; not on the app's port; nothing else on the metrics port.
public sealed class MetricsTests
{
    // The sum of the samples of `name` whose labels include every one of `labels` (k="v").
    private static double Sum(string text, string name, params string[] labels) =>
        text.Split('\n')
            .Where(l => l.StartsWith(name + "{", StringComparison.Ordinal) && labels.All(l.Contains))
            .Sum(l => double.Parse(l[(l.LastIndexOf(' ') + 1)..], CultureInfo.InvariantCulture));

    private static bool Has(string text, string name) =>
        text.Split('\n').Any(l => l.StartsWith(name + "{", StringComparison.Ordinal) || l.StartsWith(name + " ", StringComparison.Ordinal));

    private static async Task<(ApiProcess Api, HttpClient Metrics)> StartAsync()
    {
        var port = FreePort.Next();
        var api = await ApiProcess.StartAsync(new() { ["METRICS_PORT"] = port.ToString(CultureInfo.InvariantCulture) });
        return (api, new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}"), Timeout = TimeSpan.FromSeconds(30) });
    }

    [Fact]
    public async Task Counts_every_request_by_route_and_status_with_the_thread_pool_and_kestrel()
    {
        var (api, metrics) = await StartAsync();
        await using var _ = api;
        using var __ = metrics;
        for (var i = 0; i < 7; i++) Assert.Equal(HttpStatusCode.OK, (await api.Http.GetAsync("/api")).StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, (await api.Http.GetAsync("/pi?samples=lots")).StatusCode);
        // Not on the app's port, which nginx proxies.
        await ProblemAssert.IsProblem(await api.Http.GetAsync("/metrics"), HttpStatusCode.NotFound);

        var response = await metrics.GetAsync("/metrics");
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var text = await response.Content.ReadAsStringAsync();
        Assert.Equal(7, Sum(text, "http_server_request_duration_seconds_count", "http_route=\"/api\"", "http_response_status_code=\"200\""));
        Assert.Equal(1, Sum(text, "http_server_request_duration_seconds_count", "http_route=\"/pi\"", "http_response_status_code=\"400\""));
        foreach (var name in new[]
        {
            "dotnet_thread_pool_thread_count", "dotnet_thread_pool_queue_length", "dotnet_thread_pool_work_item_count_total",
            "kestrel_active_connections", "dotnet_process_cpu_time_seconds_total", "dotnet_process_memory_working_set_bytes",
        })
        {
            Assert.True(Has(text, name), $"{name} is exported");
        }
        Assert.True(Sum(text, "dotnet_thread_pool_thread_count") >= 1);
        Assert.True(Sum(text, "kestrel_active_connections", "server_port=\"" + api.Port + "\"") >= 0);
    }

    // Blocking calls hold the pool's threads: the pool adds threads, a second or so each, and the
    // thread count shows it. (The queue length is read by a scrape that itself waits in that queue
    // for a thread, so it under-reads the worst moment.)
    [Fact]
    public async Task Blocking_requests_make_the_thread_pool_grow()
    {
        var (api, metrics) = await StartAsync();
        await using var _ = api;
        using var __ = metrics;
        var before = Sum(await metrics.GetStringAsync("/metrics"), "dotnet_thread_pool_thread_count");
        var blocked = Enumerable.Range(0, 40).Select(_ => api.Http.GetAsync("/delay/blocking?ms=3000")).ToArray();
        await Task.Delay(2000);
        var during = Sum(await metrics.GetStringAsync("/metrics"), "dotnet_thread_pool_thread_count");
        foreach (var r in await Task.WhenAll(blocked)) Assert.Equal(HttpStatusCode.OK, r.StatusCode);
        Assert.True(during >= before + 2, $"the pool grew from {before} to {during} threads under blocking calls");
    }

    [Fact]
    public async Task The_metrics_port_answers_only_GET_metrics()
    {
        var (api, metrics) = await StartAsync();
        await using var _ = api;
        using var __ = metrics;
        await ProblemAssert.IsProblem(await metrics.GetAsync("/api"), HttpStatusCode.NotFound);
        await ProblemAssert.IsProblem(await metrics.PostAsync("/metrics", new StringContent("{}")), HttpStatusCode.NotFound);
    }
}
