#include "events.h"
#include "arena.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if OPGEN_THREADS
#include <pthread.h>
#include <stdatomic.h>
#endif

/* Events handed from the parsing thread to the reader in batches. A batch's
 * events keep libyaml's strings until the parsing thread refills the batch (or
 * the stream is closed): libyaml's memory is allocated and freed on the thread
 * that parses, never copied. */
#ifndef BATCH_EVENTS
#define BATCH_EVENTS 256
#endif
#ifndef BATCHES
#define BATCHES 4
#endif

struct og_event_batch {
    yaml_event_t ev[BATCH_EVENTS];
    unsigned n;
    bool last; /* the stream ended, or the parser failed, after these events */
};

#if OPGEN_THREADS
struct og_event_thread {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    og_event_batch batches[BATCHES];
    atomic_uint filled, read; /* batches handed over, batches given back */
    atomic_bool stop;         /* the consumer is done: parse no further */
    atomic_int sleepers;      /* threads waiting on cv */
};

/* Waits until ready(t), asleep on the condition variable; the other side only
 * takes the lock to wake it when it sleeps. */
static void await(og_event_thread *t, bool (*ready)(og_event_thread *t)) {
    if (ready(t)) return;
    pthread_mutex_lock(&t->mu);
    atomic_fetch_add(&t->sleepers, 1); /* before the last look: wake() then sees it, or this sees its change */
    while (!ready(t)) pthread_cond_wait(&t->cv, &t->mu);
    atomic_fetch_sub(&t->sleepers, 1);
    pthread_mutex_unlock(&t->mu);
}

/* After a change await()'s condition may be waiting for. */
static void wake(og_event_thread *t) {
    if (!atomic_load(&t->sleepers)) return;
    pthread_mutex_lock(&t->mu);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

static bool has_room(og_event_thread *t) { return atomic_load(&t->filled) - atomic_load(&t->read) < BATCHES || atomic_load(&t->stop); }
static bool has_batch(og_event_thread *t) { return atomic_load(&t->filled) != atomic_load(&t->read); }

static void empty(og_event_batch *b) {
    for (unsigned i = 0; i < b->n; i++) yaml_event_delete(&b->ev[i]);
    b->n = 0;
}

static void fill(yaml_parser_t *p, og_event_batch *b) {
    empty(b);
    while (b->n < BATCH_EVENTS) {
        yaml_event_t *ev = &b->ev[b->n];
        if (!yaml_parser_parse(p, ev)) {
            b->last = true;
            break;
        }
        b->n++;
        if (ev->type == YAML_STREAM_END_EVENT) {
            b->last = true;
            break;
        }
    }
}

typedef struct consumer {
    og_events *e;
    void (*consume)(og_events *e, void *ctx);
    void *ctx;
} consumer;

static void *consumer_thread(void *arg) {
    consumer *c = arg;
    c->consume(c->e, c->ctx);
    og_event_thread *t = c->e->thread;
    atomic_store(&t->stop, true); /* it may have stopped early: the parsing stops too */
    wake(t);
    return NULL;
}

/* Parses into the batches in turn while the consumer reads them. */
static void produce(og_events *e) {
    og_event_thread *t = e->thread;
    for (unsigned k = 0;; k++) {
        await(t, has_room);
        if (atomic_load(&t->stop)) return;
        og_event_batch *b = &t->batches[k % BATCHES];
        fill(&e->parser, b);
        atomic_fetch_add(&t->filled, 1);
        wake(t);
        if (b->last) return; /* the parser is the consumer's to read now */
    }
}

/* True when consume ran on a second thread (false: no thread could start). */
static bool run_threaded(og_events *e, void (*consume)(og_events *e, void *ctx), void *ctx) {
    og_event_thread *t = og_xcalloc(1, sizeof *t);
    if (pthread_mutex_init(&t->mu, NULL) != 0) return free(t), false;
    if (pthread_cond_init(&t->cv, NULL) != 0) return pthread_mutex_destroy(&t->mu), free(t), false;
    atomic_init(&t->filled, 0);
    atomic_init(&t->read, 0);
    atomic_init(&t->stop, false);
    atomic_init(&t->sleepers, 0);
    e->thread = t;
    consumer c = {e, consume, ctx};
    bool ok = pthread_create(&t->thread, NULL, consumer_thread, &c) == 0;
    if (ok) {
        produce(e);
        pthread_join(t->thread, NULL);
        for (int i = 0; i < BATCHES; i++) empty(&t->batches[i]);
    }
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
    e->thread = NULL;
    return ok;
}

/* The next batch once the current one is read (the consumer's side). */
static void next_batch(og_events *e) {
    og_event_thread *t = e->thread;
    if (e->cur) {
        atomic_fetch_add(&t->read, 1);
        wake(t);
    }
    await(t, has_batch);
    e->cur = &t->batches[atomic_load(&t->read) % BATCHES];
    e->ev = e->cur->ev;
    e->n = e->cur->n;
    e->pos = 0;
}
#endif

void og_events_run(const char *buf, size_t len, bool may_thread, void (*consume)(og_events *e, void *ctx), void *ctx) {
    og_events e;
    memset(&e, 0, sizeof e);
    if (!yaml_parser_initialize(&e.parser)) og_oom();
    yaml_parser_set_input_string(&e.parser, (const unsigned char *)buf, len);
    bool done = false;
#if OPGEN_THREADS
    if (may_thread && len >= OPGEN_THREAD_MIN_INPUT) done = run_threaded(&e, consume, ctx);
#else
    (void)may_thread;
#endif
    if (!done) consume(&e, ctx);
    if (e.has_one) yaml_event_delete(&e.one);
    yaml_parser_delete(&e.parser);
}

bool og_events_next_batch(og_events *e, const yaml_event_t **ev) {
#if OPGEN_THREADS
    if (e->thread) {
        if (e->cur && e->cur->last) return false; /* only a failed batch ends early */
        next_batch(e);
        return og_events_next(e, ev);
    }
#endif
    if (e->has_one) yaml_event_delete(&e->one);
    e->has_one = yaml_parser_parse(&e->parser, &e->one) != 0;
    *ev = &e->one;
    return e->has_one;
}
