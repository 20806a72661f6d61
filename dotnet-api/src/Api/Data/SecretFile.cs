namespace Api.Data;

// Secrets arrive as files (compose mounts `secrets:` under /run/secrets); a setting names the file.
public static class SecretFile
{
    // The file's content without its trailing newline; null when the setting is unset.
    public static string? Read(IConfiguration config, string key)
    {
        var path = config[key];
        if (string.IsNullOrEmpty(path)) return null;
        try
        {
            return File.ReadAllText(path).TrimEnd('\r', '\n');
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new InvalidOperationException($"{key}={path} cannot be read: {e.Message}");
        }
    }
}
