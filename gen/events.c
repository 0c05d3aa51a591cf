#include "events.h"
#include "arena.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if OPGEN_THREADS
#include <pthread.h>
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
    unsigned filled, read; /* batches handed over, batches given back */
    bool stop; /* the consumer is done: parse no further */
};

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
    pthread_mutex_lock(&t->mu); /* it may have stopped early: the parsing stops too */
    t->stop = true;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* Parses into the batches in turn while the consumer reads them. */
static void produce(og_events *e) {
    og_event_thread *t = e->thread;
    for (unsigned k = 0;; k++) {
        pthread_mutex_lock(&t->mu);
        while (t->filled - t->read == BATCHES && !t->stop) pthread_cond_wait(&t->cv, &t->mu);
        bool stop = t->stop;
        pthread_mutex_unlock(&t->mu);
        if (stop) return;
        og_event_batch *b = &t->batches[k % BATCHES];
        fill(&e->parser, b);
        pthread_mutex_lock(&t->mu);
        t->filled++;
        pthread_cond_signal(&t->cv);
        pthread_mutex_unlock(&t->mu);
        if (b->last) return; /* the parser is the consumer's to read now */
    }
}

/* True when consume ran on a second thread (false: no thread could start). */
static bool run_threaded(og_events *e, void (*consume)(og_events *e, void *ctx), void *ctx) {
    og_event_thread *t = og_xcalloc(1, sizeof *t);
    if (pthread_mutex_init(&t->mu, NULL) != 0) return free(t), false;
    if (pthread_cond_init(&t->cv, NULL) != 0) return pthread_mutex_destroy(&t->mu), free(t), false;
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
    pthread_mutex_lock(&t->mu);
    if (e->cur) {
        t->read++;
        pthread_cond_signal(&t->cv);
    }
    while (t->filled == t->read) pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    e->cur = &t->batches[t->read % BATCHES];
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
