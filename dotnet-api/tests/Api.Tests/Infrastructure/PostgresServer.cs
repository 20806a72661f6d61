namespace Api.Tests.Infrastructure;

// A throwaway PostgreSQL server from the machine's packages (/usr/lib/postgresql/<v>/bin):
// data dir and unix socket under /tmp, TCP on a free loopback port, fsync off. Every connection
// needs its password (scram-sha-256), so a login's rights and password are really checked. As root
// the binaries run as the `postgres` OS user (initdb refuses root).
public sealed class PostgresServer : IDisposable
{
    private readonly string _bin;
    private readonly string _root;
    private readonly string _data;

    public int Port { get; }

    // The superuser's password, random per server.
    public string AdminPassword { get; } = "Pg-" + Guid.NewGuid().ToString("N");

    public PostgresServer()
    {
        _bin = FindBin();
        _root = Directory.CreateTempSubdirectory("dotnet-api-pg-").FullName;
        _data = Path.Combine(_root, "data");
        Port = FreePort.Next();
        var pwfile = Path.Combine(_root, "pwfile");
        File.WriteAllText(pwfile, AdminPassword);
        if (Shell.IsRoot) Check(Shell.Run("chown", ["-R", "postgres:postgres", _root], TimeSpan.FromSeconds(10)), "chown");
        Check(Pg("initdb", ["-D", _data, "-U", "postgres", "-A", "scram-sha-256", $"--pwfile={pwfile}", "-E", "UTF8", "--no-sync"], 60), "initdb");
        File.Delete(pwfile);
        Check(Pg("pg_ctl", ["-D", _data, "-l", Path.Combine(_root, "server.log"), "-w", "-t", "60", "-o",
            $"-p {Port} -k {_root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", "start"], 90), "pg_ctl start");
    }

    // As the superuser.
    public string ConnectionString(string database) => ConnectionString(database, "postgres", AdminPassword);

    public string ConnectionString(string database, string user, string password) =>
        $"Host=127.0.0.1;Port={Port};Username={user};Password={password};Database={database};Timeout=15";

    public void Dispose()
    {
        try { Pg("pg_ctl", ["-D", _data, "-m", "immediate", "-w", "-t", "30", "stop"], 60); }
        finally { Directory.Delete(_root, recursive: true); }
    }

    private (int, string) Pg(string tool, string[] args, int timeoutSeconds)
    {
        var exe = Path.Combine(_bin, tool);
        var timeout = TimeSpan.FromSeconds(timeoutSeconds);
        return Shell.IsRoot
            ? Shell.Run("runuser", ["-u", "postgres", "--", exe, .. args], timeout)
            : Shell.Run(exe, args, timeout);
    }

    private static void Check((int Code, string Output) result, string what)
    {
        if (result.Code != 0) throw new InvalidOperationException($"{what} failed ({result.Code}): {result.Output}");
    }

    private static string FindBin()
    {
        var candidates = Directory.Exists("/usr/lib/postgresql")
            ? Directory.GetDirectories("/usr/lib/postgresql")
                .Select(d => (Dir: Path.Combine(d, "bin"), Version: int.TryParse(Path.GetFileName(d), out var v) ? v : 0))
                .Where(c => File.Exists(Path.Combine(c.Dir, "initdb")))
                .OrderByDescending(c => c.Version)
                .ToList()
            : [];
        return candidates.Count > 0
            ? candidates[0].Dir
            : throw new InvalidOperationException(
                "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin: apt-get install postgresql.");
    }
}
