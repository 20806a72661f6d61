using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Api.Tests.Infrastructure;

public static class Shell
{
    [DllImport("libc", EntryPoint = "geteuid")]
    private static extern uint GetEuid();

    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int Kill(int pid, int signal);

    public const int SigTerm = 15;

    public static bool IsRoot => GetEuid() == 0;

    // Alive and not a zombie, polled for up to 5 s (init reaps orphans asynchronously).
    public static bool IsRunning(int pid)
    {
        for (var i = 0; i < 50; i++)
        {
            string stat;
            try { stat = File.ReadAllText($"/proc/{pid}/stat"); }
            catch (IOException) { return false; }
            if (stat[(stat.LastIndexOf(')') + 2)..].StartsWith('Z')) return false;
            Thread.Sleep(100);
        }
        return true;
    }

    public static void Signal(int pid, int signal)
    {
        if (Kill(pid, signal) != 0) throw new InvalidOperationException($"kill({pid}, {signal}) failed: errno {Marshal.GetLastPInvokeError()}");
    }

    // Runs a program to completion (bounded by `timeout`) and returns its exit code and output.
    public static (int Code, string Output) Run(string file, IEnumerable<string> args, TimeSpan timeout, IDictionary<string, string>? env = null)
    {
        var psi = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var a in args) psi.ArgumentList.Add(a);
        if (env is not null) foreach (var (k, v) in env) psi.Environment[k] = v;
        using var p = Process.Start(psi)!;
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        if (!p.WaitForExit(timeout))
        {
            p.Kill(entireProcessTree: true);
            throw new TimeoutException($"{file} {string.Join(' ', args)} did not finish in {timeout}");
        }
        return (p.ExitCode, stdout.Result + stderr.Result);
    }
}
