using System.Collections.Concurrent;
using System.Diagnostics;

namespace Api.Tests.Infrastructure;

// The built app (Api.dll) as a real Kestrel process on a free loopback port, on its own SQLite file.
public sealed class ApiProcess : IAsyncDisposable
{
    private readonly Process _process;
    private readonly string _dir;
    private readonly ConcurrentQueue<string> _output = new();

    // Kestrel logs "Request starting ..." when a request reaches the app: a test can wait for that event.
    public static readonly Dictionary<string, string> LogRequests = new()
    {
        ["Logging__LogLevel__Microsoft.AspNetCore.Hosting.Diagnostics"] = "Information",
    };

    public int Port { get; }
    public int Pid => _process.Id;
    public bool HasExited => _process.HasExited;

    // Where the first line of the output holding `text` is (-1: none yet): what was logged before what.
    public int LineOf(string text) => _output.ToList().FindIndex(line => line.Contains(text, StringComparison.Ordinal));
    public HttpClient Http { get; }

    private ApiProcess(Process process, string dir, int port)
    {
        _process = process;
        _dir = dir;
        Port = port;
        Http = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}"), Timeout = TimeSpan.FromSeconds(30) };
    }

    public static Dictionary<string, string> Env(string dir) => new()
    {
        ["Database__Provider"] = "Sqlite",
        ["ConnectionStrings__Default"] = $"Data Source={Path.Combine(dir, "products.db")}",
        ["Seed__ProductsFile"] = Paths.SeedFile,
        ["DOTNET_gcServer"] = "0",
    };

    public static (int Code, string Output) Migrate(string dir) =>
        Shell.Run("dotnet", [Paths.ApiDll, "migrate"], TimeSpan.FromSeconds(60), Env(dir));

    public static async Task<ApiProcess> StartAsync(Dictionary<string, string>? extraEnv = null)
    {
        var dir = Directory.CreateTempSubdirectory("dotnet-api-proc-").FullName;
        var (code, output) = Migrate(dir);
        if (code != 0) throw new InvalidOperationException($"migrate failed: {output}");

        var port = FreePort.Next();
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        psi.ArgumentList.Add(Paths.ApiDll);
        foreach (var (k, v) in Env(dir)) psi.Environment[k] = v;
        psi.Environment["PORT"] = port.ToString();
        foreach (var (k, v) in extraEnv ?? []) psi.Environment[k] = v;
        var process = Process.Start(psi)!;
        var api = new ApiProcess(process, dir, port);
        process.OutputDataReceived += (_, e) => { if (e.Data is not null) api._output.Enqueue(e.Data); };
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) api._output.Enqueue(e.Data); };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();

        await api.WaitReadyAsync();
        return api;
    }

    // Resolves once `count` lines of the process's output contain `text`; throws after `timeout`.
    public async Task WaitForOutputAsync(string text, int count, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (_output.Count(line => line.Contains(text, StringComparison.Ordinal)) < count)
        {
            if (DateTime.UtcNow > deadline) throw new TimeoutException($"{count} × '{text}' not in the output within {timeout}");
            if (_process.HasExited) throw new InvalidOperationException($"Api exited with {_process.ExitCode} before logging {count} × '{text}'");
            await Task.Delay(20);
        }
    }

    private async Task WaitReadyAsync()
    {
        for (var attempt = 0; attempt < 150; attempt++)
        {
            if (_process.HasExited) throw new InvalidOperationException($"Api exited early with {_process.ExitCode}");
            try
            {
                if ((await Http.GetAsync("/health/ready")).IsSuccessStatusCode) return;
            }
            catch (HttpRequestException) { }
            await Task.Delay(100);
        }
        throw new TimeoutException("Api did not become ready in 15 s");
    }

    public void Terminate() => Shell.Signal(_process.Id, Shell.SigTerm);

    public async Task<int> WaitForExitAsync(TimeSpan timeout)
    {
        using var cts = new CancellationTokenSource(timeout);
        await _process.WaitForExitAsync(cts.Token);
        return _process.ExitCode;
    }

    public async ValueTask DisposeAsync()
    {
        Http.Dispose();
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }
        _process.Dispose();
        Directory.Delete(_dir, recursive: true);
    }
}
