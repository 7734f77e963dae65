"""An echo server and two clients on 127.0.0.1, with asyncio's streams."""
import asyncio


async def handle(reader, writer):
    while line := await reader.readline():
        writer.write(line.upper())
        await writer.drain()
    print("server: client left")
    writer.close()
    await writer.wait_closed()


async def client(name, port, lines):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for line in lines:
        writer.write(f"{name} {line}\n".encode())
        await writer.drain()
        print((await reader.readline()).decode().strip())
    writer.close()
    await writer.wait_closed()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        await client("one", port, ["hello", "world"])
        await client("two", port, ["again"])
        await asyncio.sleep(0.05)
    print("server closed")


asyncio.run(main())
