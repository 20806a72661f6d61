using System.Net;
using System.Net.Sockets;

namespace Api.Tests.Infrastructure;

public static class FreePort
{
    public static int Next()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
