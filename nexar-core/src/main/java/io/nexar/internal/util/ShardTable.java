package io.nexar.internal.util;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * The per-communicator shards of a receive side (the collective engine's {@code CommState}s, the mailbox's
 * {@code MailShard}s) by communicator id: found by every arriving message without a lock or a key object (an
 * open-addressing table read through one volatile reference), added under this table's monitor by copying
 * (communicators are created rarely; an id is never removed, since ids are never reused).
 *
 * <p>The monitor also orders a message of a communicator that has no shard yet against that shard's creation, for a
 * receive side that keeps such messages elsewhere under it (the collective engine: see its class comment).
 *
 * @param <T> the shards
 */
public final class ShardTable<T> {
    private final ToIntFunction<T> idOf;
    private final Function<T, Lock> lockOf;
    private final IntFunction<T> create;
    /** Slots (power-of-two length), at most half full; null for an empty one. */
    private volatile Object[] slots = new Object[16];
    private int size;

    /**
     * @param idOf the communicator id of a shard
     * @param lockOf the lock that guards a shard
     * @param create makes the shard of a communicator id
     */
    public ShardTable(ToIntFunction<T> idOf, Function<T, Lock> lockOf, IntFunction<T> create) {
        this.idOf = idOf;
        this.lockOf = lockOf;
        this.create = create;
    }

    /** The shard of communicator {@code id}, or null if it has none yet. No lock. */
    @SuppressWarnings("unchecked")
    public T get(int id) {
        Object[] t = slots;
        int mask = t.length - 1;
        for (int i = index(id, mask); ; i = (i + 1) & mask) {
            T s = (T) t[i];
            if (s == null || idOf.applyAsInt(s) == id) {
                return s;
            }
        }
    }

    /** The shard of communicator {@code id}, created if it has none yet. */
    public T getOrCreate(int id) {
        T s = get(id);
        return s != null ? s : createNow(id);
    }

    @SuppressWarnings("unchecked")
    private synchronized T createNow(int id) {
        T s = get(id);
        if (s != null) {
            return s;
        }
        s = create.apply(id);
        Object[] old = slots;
        Object[] t = new Object[2 * (size + 1) > old.length ? old.length * 2 : old.length];
        for (Object e : old) {
            if (e != null) {
                insert(t, (T) e);
            }
        }
        insert(t, s);
        size++;
        slots = t; // published whole: readers see the old table or the new one
        return s;
    }

    /**
     * Every shard, by id: a snapshot, so a shard created later is not in it. A process-wide fact published before this
     * call is seen by every shard created after it.
     */
    @SuppressWarnings("unchecked")
    public List<T> all() {
        var list = new ArrayList<T>();
        for (Object e : slots) {
            if (e != null) {
                list.add((T) e);
            }
        }
        list.sort(Comparator.comparingInt(idOf));
        return list;
    }

    /**
     * Runs {@code body} on every shard of {@link #all}, by id, each under its lock: how a process-wide fact published
     * before this call (a peer down, an abort, a close) reaches every shard, and how reports read them.
     */
    public void forEachLocked(Consumer<T> body) {
        for (T s : all()) {
            Lock lock = lockOf.apply(s);
            lock.lock();
            try {
                body.accept(s);
            } finally {
                lock.unlock();
            }
        }
    }

    private void insert(Object[] t, T s) {
        int mask = t.length - 1;
        int i = index(idOf.applyAsInt(s), mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = s;
    }

    private static int index(int id, int mask) {
        int h = id * 0x9E3779B9;
        return (h ^ h >>> 16) & mask;
    }
}
