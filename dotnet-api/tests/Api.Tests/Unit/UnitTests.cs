using System.Text.Json;
using System.Text.RegularExpressions;
using Api.Data;
using Api.Endpoints;
using Api.Errors;
using Api.Hosting;
using Api.Tests.Infrastructure;
using BadHttpRequestException = Microsoft.AspNetCore.Http.BadHttpRequestException;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.EntityFrameworkCore;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Api.Tests.Unit;

public sealed class UnitTests
{
    [Theory]
    [InlineData(null, 7)]
    [InlineData("1", 1)]
    [InlineData("10", 10)]
    public void QueryInt_accepts_values_in_range(string? raw, int expected)
    {
        var errors = new Dictionary<string, string[]>();
        Assert.Equal(expected, QueryInt.Parse(raw, "n", 7, 1, 10, errors));
        Assert.Empty(errors);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("11")]
    [InlineData("-1")]
    [InlineData(" 5")]
    [InlineData("5.0")]
    [InlineData("0x5")]
    [InlineData("")]
    [InlineData("99999999999999")]
    public void QueryInt_rejects_everything_else_naming_the_field(string raw)
    {
        var errors = new Dictionary<string, string[]>();
        QueryInt.Parse(raw, "n", 7, 1, 10, errors);
        Assert.Contains("n", errors.Keys);
    }

    [Theory]
    [InlineData(null, DatabaseProvider.Sqlite)]
    [InlineData("SQLite", DatabaseProvider.Sqlite)]
    [InlineData("postgres", DatabaseProvider.Postgres)]
    [InlineData("Npgsql", DatabaseProvider.Postgres)]
    [InlineData("SqlServer", DatabaseProvider.SqlServer)]
    public void Provider_names_parse(string? value, DatabaseProvider expected) =>
        Assert.Equal(expected, DatabaseSetup.ParseProvider(value));

    [Fact]
    public void Unknown_provider_is_rejected() =>
        Assert.Throws<InvalidOperationException>(() => DatabaseSetup.ParseProvider("mysql"));

    [Fact]
    public void Exceptions_map_to_the_right_status_without_details()
    {
        Assert.Equal(400, ProblemExceptionHandler.Classify(new JsonException("x")).Status);
        Assert.Equal(400, ProblemExceptionHandler.Classify(new BadHttpRequestException("x", new JsonException())).Status);
        Assert.Equal(413, ProblemExceptionHandler.Classify(new BadHttpRequestException("x", 413)).Status);
        Assert.Equal(409, ProblemExceptionHandler.Classify(new DbUpdateConcurrencyException("x")).Status);
        Assert.Equal(409, ProblemExceptionHandler.Classify(new DbUpdateException("x",
            new Microsoft.Data.Sqlite.SqliteException("UNIQUE constraint failed", 19, 2067))).Status);
        var unknown = ProblemExceptionHandler.Classify(new InvalidOperationException("secret internals"));
        Assert.Equal(500, unknown.Status);
        Assert.Null(unknown.Detail);
    }

    [Fact]
    public void Runtime_settings_read_configuration_and_reject_nonsense()
    {
        var config = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Runtime:MinWorkerThreads"] = "64", ["Shutdown:TimeoutSeconds"] = "12",
        }).Build();
        Assert.Equal(new RuntimeSettings(64, TimeSpan.FromSeconds(12)), RuntimeSettings.From(config));
        var drain = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Shutdown:TimeoutSeconds"] = "20", ["Shutdown:DrainDelaySeconds"] = "12",
        }).Build();
        Assert.Equal(TimeSpan.FromSeconds(12), RuntimeSettings.From(drain).DrainDelay);
        foreach (var (timeout, delay) in new[] { ("20", "20"), ("20", "-1"), ("5", "30") })
        {
            var wrong = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
            {
                ["Shutdown:TimeoutSeconds"] = timeout, ["Shutdown:DrainDelaySeconds"] = delay,
            }).Build();
            Assert.Throws<InvalidOperationException>(() => RuntimeSettings.From(wrong));
        }

        var bad = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Shutdown:TimeoutSeconds"] = "-1",
        }).Build();
        Assert.Throws<InvalidOperationException>(() => RuntimeSettings.From(bad));
    }

    [Fact]
    public void Pi_estimate_is_close()
    {
        Assert.InRange(InfoEndpoints.EstimatePi(1_000_000), 3.10, 3.18);
    }

    [Fact]
    public void Pi_estimate_does_the_same_work_as_the_node_samples()
    {
        // The Node samples' estimatePi(100000, 12345) and estimatePi(1000000, 7): the same
        // xorshift32 stream, so the benchmark's pi workload costs the same samples in every runtime.
        Assert.Equal(3.14632, InfoEndpoints.EstimatePi(100_000, 12345), 10);
        Assert.Equal(3.138748, InfoEndpoints.EstimatePi(1_000_000, 7), 10);
    }

    [Fact]
    public async Task Seed_file_has_100_unique_valid_products()
    {
        var seed = await ProductSeeder.ReadAsync(Paths.SeedFile);
        Assert.Equal(100, seed.Count);
        Assert.Equal(100, seed.Select(s => s.Sku).Distinct().Count());
        Assert.All(seed, s => Assert.Empty(new ProductInput { Sku = s.Sku, Name = s.Name, Description = s.Description, Price = s.Price }.Validate()));
    }
}

// Timeouts that must line up with nginx (proxy/) and compose.yaml.
public sealed class TimeoutAlignmentTests(SqliteApi api) : IClassFixture<SqliteApi>
{
    [Fact]
    public void Kestrel_keeps_idle_connections_longer_than_nginx_upstream_keepalive()
    {
        var kestrel = api.Factory.Services.GetRequiredService<IOptions<KestrelServerOptions>>().Value;
        var nginxConf = File.ReadAllText(Path.Combine(Paths.SampleDir, "nginx", "templates", "default.conf.template"));
        var nginxKeepalive = int.Parse(Regex.Match(nginxConf, @"^\s*keepalive_timeout\s+(\d+)s;", RegexOptions.Multiline).Groups[1].Value);
        Assert.True(kestrel.Limits.KeepAliveTimeout > TimeSpan.FromSeconds(nginxKeepalive),
            $"Kestrel {kestrel.Limits.KeepAliveTimeout} must exceed nginx upstream keepalive_timeout {nginxKeepalive}s");
        Assert.Equal(1024 * 1024, kestrel.Limits.MaxRequestBodySize);
    }

    // nginx closes every connection it kept idle to a stopping replica before the drain delay ends,
    // so Kestrel closes none under a request nginx is sending (a POST lost: nginx never resends it).
    [Fact]
    public void The_drain_delay_outlasts_nginx_upstream_keepalive()
    {
        var nginxConf = File.ReadAllText(Path.Combine(Paths.SampleDir, "nginx", "templates", "default.conf.template"));
        var nginxKeepalive = int.Parse(Regex.Match(nginxConf, @"^\s*keepalive_timeout\s+(\d+)s;", RegexOptions.Multiline).Groups[1].Value);
        var compose = File.ReadAllText(Path.Combine(Paths.SampleDir, "compose.yaml"));
        var delay = int.Parse(Regex.Match(compose, @"Shutdown__DrainDelaySeconds:\s*""(\d+)""").Groups[1].Value);
        Assert.True(delay > nginxKeepalive, $"drain delay {delay}s must exceed nginx upstream keepalive_timeout {nginxKeepalive}s");
    }

    [Fact]
    public void Compose_grace_period_exceeds_the_host_shutdown_timeout()
    {
        var host = api.Factory.Services.GetRequiredService<IOptions<HostOptions>>().Value;
        var compose = File.ReadAllText(Path.Combine(Paths.SampleDir, "compose.yaml"));
        var app = compose[compose.IndexOf("\n  app:", StringComparison.Ordinal)..];
        var grace = int.Parse(Regex.Match(app, @"stop_grace_period:\s*(\d+)s").Groups[1].Value);
        Assert.True(TimeSpan.FromSeconds(grace) > host.ShutdownTimeout,
            $"stop_grace_period {grace}s must exceed ShutdownTimeout {host.ShutdownTimeout}");
    }
}
