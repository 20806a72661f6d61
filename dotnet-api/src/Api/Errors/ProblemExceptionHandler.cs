using System.Data.Common;
using System.Text.Json;
using Api.Data;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Mvc;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Storage;

namespace Api.Errors;

// Maps exceptions to ProblemDetails. Responses never carry exception messages or stack traces;
// the exception itself goes to the log.
public sealed class ProblemExceptionHandler(IProblemDetailsService problems, ILogger<ProblemExceptionHandler> log)
    : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext http, Exception exception, CancellationToken ct)
    {
        if (exception is OperationCanceledException && http.RequestAborted.IsCancellationRequested)
        {
            http.Response.StatusCode = StatusCodes.Status499ClientClosedRequest;
            return true;
        }

        var (status, title, detail) = Classify(exception);
        if (status == 503) log.LogWarning(exception, "Database unavailable on {Method} {Path}", http.Request.Method, http.Request.Path);
        else if (status >= 500) log.LogError(exception, "Unhandled error on {Method} {Path}", http.Request.Method, http.Request.Path);
        else log.LogDebug(exception, "Request rejected with {Status}", status);

        http.Response.StatusCode = status;
        return await problems.TryWriteAsync(new ProblemDetailsContext
        {
            HttpContext = http,
            Exception = null,
            ProblemDetails = new ProblemDetails { Status = status, Title = title, Detail = detail },
        });
    }

    public static (int Status, string Title, string? Detail) Classify(Exception exception) => exception switch
    {
        BadHttpRequestException { InnerException: JsonException } or JsonException =>
            (400, "Malformed JSON", "The request body is not valid JSON or a field has the wrong type."),
        BadHttpRequestException { StatusCode: 413 } =>
            (413, "Payload Too Large", "The request body is larger than the server accepts."),
        BadHttpRequestException { StatusCode: 415 } =>
            (415, "Unsupported Media Type", "Send the body as application/json."),
        BadHttpRequestException b =>
            (b.StatusCode, "Bad Request", "The request could not be read: check the body and the parameters."),
        DbUpdateConcurrencyException =>
            (409, "Conflict", "The product was changed or deleted since you read it; read it again and retry with its current version."),
        DbUpdateException d when DatabaseSetup.IsUniqueViolation(d) =>
            (409, "Conflict", "A product with this sku already exists."),
        // The database is down, unreachable or busy past the retries: the client may retry.
        RetryLimitExceededException or DbException or TimeoutException or DbUpdateException { InnerException: DbException } =>
            (503, "Service Unavailable", "The database is unavailable; retry later."),
        _ => (500, "Internal Server Error", null),
    };
}
