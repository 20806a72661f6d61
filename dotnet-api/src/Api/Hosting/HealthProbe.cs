namespace Api.Hosting;

// `dotnet Api.dll --healthcheck <url>`: the aspnet image has no curl, so the container's
// healthcheck runs the app itself as a tiny HTTP client. Exit 0 on a 2xx, 1 otherwise.
public static class HealthProbe
{
    public static async Task<int> RunAsync(string url)
    {
        try
        {
            using var http = new HttpClient { Timeout = TimeSpan.FromSeconds(3) };
            using var response = await http.GetAsync(url);
            return response.IsSuccessStatusCode ? 0 : 1;
        }
        catch (Exception e) when (e is HttpRequestException or TaskCanceledException or UriFormatException or InvalidOperationException)
        {
            await Console.Error.WriteLineAsync($"healthcheck {url}: {e.Message}");
            return 1;
        }
    }
}
