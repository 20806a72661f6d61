using System.Text.Json;

namespace Api.Tests.Infrastructure;

// The repository's local runner (harness/bin/lab.js on Node 26): runs compose.yaml as processes,
// with Debian's nginx in front. Each use gets its own run folder. `env` reaches compose.yaml's
// interpolation (DB=sqlite) and the processes it starts (their logging).
public sealed class Runner(IDictionary<string, string>? env = null) : IAsyncDisposable
{
    private readonly string _runDir = Directory.CreateTempSubdirectory("dotnet-api-topology-").FullName;

    public JsonElement State { get; private set; }
    public string Url => State.GetProperty("url").GetString()!;

    private static string Node => Path.Combine(Paths.RepoRoot, "harness", "node_modules", ".bin", "node");
    private static string Lab => Path.Combine(Paths.RepoRoot, "harness", "bin", "lab.js");

    public static Task<Runner> UpAsync(params string[] options) => UpAsync((IDictionary<string, string>?)null, options);

    public static async Task<Runner> UpAsync(IDictionary<string, string>? env, params string[] options)
    {
        if (!File.Exists(Node)) throw new InvalidOperationException($"Node 26 not found at {Node}: run `make setup` (or npm ci in harness/).");
        var runner = new Runner(env);
        var (code, output) = runner.Lab_(["up", "dotnet-api", "--port", "0", .. options], 240);
        if (code != 0)
        {
            await runner.DisposeAsync();
            throw new InvalidOperationException($"lab up failed ({code}): {output}");
        }
        runner.State = JsonDocument.Parse(File.ReadAllText(Path.Combine(runner._runDir, "state.json"))).RootElement;
        return runner;
    }

    public IEnumerable<int> Pids(string service) =>
        State.GetProperty("services").GetProperty(service).GetProperty("instances").EnumerateArray()
            .Where(i => i.TryGetProperty("pid", out var p) && p.ValueKind == JsonValueKind.Number)
            .Select(i => i.GetProperty("pid").GetInt32());

    public (int Code, string Output) Lab_(string[] args, int timeoutSeconds) =>
        Shell.Run(Node, [Lab, .. args, "--run-dir", _runDir], TimeSpan.FromSeconds(timeoutSeconds), env);

    // Resolves once the logs of `service`'s instances hold `count` lines containing every one of `parts`.
    public async Task WaitForLogAsync(string service, int count, TimeSpan timeout, params string[] parts)
    {
        var logs = State.GetProperty("services").GetProperty(service).GetProperty("instances").EnumerateArray()
            .Select(i => i.GetProperty("log").GetString()!).ToList();
        var deadline = DateTime.UtcNow + timeout;
        while (logs.Sum(log => File.ReadLines(log).Count(line => parts.All(p => line.Contains(p, StringComparison.Ordinal)))) < count)
        {
            if (DateTime.UtcNow > deadline) throw new TimeoutException($"{count} lines with {string.Join(" + ", parts)} not in {service}'s logs within {timeout}");
            await Task.Delay(20);
        }
    }

    public ValueTask DisposeAsync()
    {
        try { Lab_(["down"], 120); }
        finally { Directory.Delete(_runDir, recursive: true); }
        return ValueTask.CompletedTask;
    }
}
