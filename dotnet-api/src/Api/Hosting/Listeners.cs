using System.Collections.Concurrent;
using System.Net;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Options;

namespace Api.Hosting;

// Kestrel's sockets, with a way to stop accepting and nothing else: new connections are refused at
// once while those open go on to their answer. Kestrel's own stop closes every connection with no
// request in progress, one nginx has just opened and written a POST on included (nginx never
// resends a POST: a 502). DrainOnStop stops accepting first, gives the open connections their
// answers (each `Connection: close`), and only then lets Kestrel stop.
public sealed class DrainableListeners(IOptions<SocketTransportOptions> options, ILoggerFactory loggers) : IConnectionListenerFactory
{
    private readonly SocketTransportFactory _sockets = new(options, loggers);
    private readonly ConcurrentBag<IConnectionListener> _bound = [];

    public async ValueTask<IConnectionListener> BindAsync(EndPoint endpoint, CancellationToken cancellationToken = default)
    {
        var listener = await _sockets.BindAsync(endpoint, cancellationToken);
        _bound.Add(listener);
        return listener;
    }

    // The listening sockets closed: Kestrel's accept loops end, its connections stay.
    public async Task StopAcceptingAsync(CancellationToken cancellationToken)
    {
        foreach (var listener in _bound) await listener.UnbindAsync(cancellationToken);
    }
}
