"""A producer and two consumers on a bounded Queue: the interleaving, step by step."""
import asyncio


async def producer(q, n):
    for i in range(n):
        await q.put(i)
        print(f"put {i} (size {q.qsize()})")
    for _ in range(2):
        await q.put(None)


async def consumer(name, q):
    while (item := await q.get()) is not None:
        print(f"{name} got {item}")
        await asyncio.sleep(0)
        q.task_done()
    q.task_done()
    print(f"{name} done")


async def main():
    q = asyncio.Queue(maxsize=2)
    await asyncio.gather(producer(q, 6), consumer("c1", q), consumer("c2", q))
    await q.join()
    print("joined", q.empty())


asyncio.run(main())
