using Api.Hosting;
using Microsoft.Extensions.Configuration;

namespace Api.Tests.Unit;

public sealed class MetricsSettingsTests
{
    private static IConfiguration Config(params (string Key, string Value)[] pairs) =>
        new ConfigurationBuilder().AddInMemoryCollection(pairs.Select(p => new KeyValuePair<string, string?>(p.Key, p.Value))).Build();

    [Fact]
    public void Metrics_port_is_off_when_unset_and_checked_when_set()
    {
        Assert.Null(Metrics.PortFrom(Config()));
        Assert.Equal(9464, Metrics.PortFrom(Config(("METRICS_PORT", "9464"))));
        Assert.Contains("METRICS_PORT must be 1..65535, got 'ninety'",
            Assert.Throws<InvalidOperationException>(() => Metrics.PortFrom(Config(("METRICS_PORT", "ninety")))).Message);
        Assert.Contains("must differ from PORT",
            Assert.Throws<InvalidOperationException>(() => Metrics.PortFrom(Config(("METRICS_PORT", "5000"), ("PORT", "5000")))).Message);
    }
}
