using Api.Data;
using Microsoft.EntityFrameworkCore;

namespace Api.Endpoints;

// What the benchmark records beside a database-bound measurement: which provider the app talked to
// and the server's own version string (results describe themselves). 503 ProblemDetails while the
// database does not answer.
public static class DatabaseInfoEndpoints
{
    public static void MapDatabaseInfoEndpoints(this IEndpointRouteBuilder app)
    {
        app.MapGet("/api/database", async (AppDbContext db, CancellationToken ct) =>
        {
            var connection = db.Database.GetDbConnection();
            try
            {
                await db.Database.OpenConnectionAsync(ct);
                return Results.Ok(new { provider = db.Database.ProviderName, serverVersion = connection.ServerVersion });
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                return Results.Problem(title: "The database does not answer", detail: e.GetType().Name, statusCode: StatusCodes.Status503ServiceUnavailable);
            }
            finally
            {
                await db.Database.CloseConnectionAsync();
            }
        });
    }
}
