"""contextvars: each task and callback runs in its own context, as asyncio promises."""
import asyncio
import contextvars

who = contextvars.ContextVar("who", default="nobody")


async def task(name):
    who.set(name)
    await asyncio.sleep(0.01)
    print(f"task {name} sees {who.get()}")


async def main():
    loop = asyncio.get_running_loop()
    who.set("main")
    ctx = contextvars.copy_context()
    ctx.run(who.set, "in ctx")
    done = loop.create_future()
    loop.call_soon(lambda: print("callback sees", who.get()), context=ctx)
    loop.call_soon(lambda: (print("default sees", who.get()), done.set_result(None)))
    await done
    await asyncio.gather(task("a"), task("b"))
    print("main sees", who.get())


asyncio.run(main())
