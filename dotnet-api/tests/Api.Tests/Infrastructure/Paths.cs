namespace Api.Tests.Infrastructure;

public static class Paths
{
    // dotnet-api/ (the folder holding DotnetApi.slnx), found from the test binaries upwards.
    public static string SampleDir { get; } = FindUp("DotnetApi.slnx");

    public static string RepoRoot => Path.GetDirectoryName(SampleDir)!;

    public static string SeedFile => Path.Combine(RepoRoot, "database", "products", "products.json");

    // Api.dll is copied next to the tests by the project reference.
    public static string ApiDll => Path.Combine(AppContext.BaseDirectory, "Api.dll");

    private static string FindUp(string file)
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, file))) return dir.FullName;
        }
        throw new InvalidOperationException($"{file} not found above {AppContext.BaseDirectory}");
    }
}
