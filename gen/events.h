/* libyaml's events of one input, in order, to a consumer. A large input is parsed
 * on the calling thread while the consumer builds nodes and models entries on a
 * second thread from the events already parsed: the two halves of the work
 * overlap instead of adding up (libyaml's memory stays the calling thread's, as
 * in any single-threaded libyaml program). The events a consumer sees are the
 * same either way, and so are its errors; a parse error arrives after the last
 * good event, as it would from yaml_parser_parse. */
#ifndef OG_EVENTS_H
#define OG_EVENTS_H
#include "config.h"
#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

typedef struct og_event_batch og_event_batch;
typedef struct og_event_thread og_event_thread;

typedef struct og_events {
    yaml_parser_t parser;    /* its error fields tell what failed */
    og_event_thread *thread; /* NULL: parsed as the consumer asks, an event at a time */
    og_event_batch *cur;     /* the batch being read: its events, how many, where */
    const yaml_event_t *ev;
    unsigned n, pos;
    yaml_event_t one; /* unthreaded: the event handed out last */
    bool has_one;
} og_events;

/* Runs consume(e, ctx) over the events of buf[0..len) (when may_thread, on a
 * second thread while this one parses, from OPGEN_THREAD_MIN_INPUT bytes).
 * consume reads them with og_events_next and may stop before the stream's end. */
void og_events_run(const char *buf, size_t len, bool may_thread, void (*consume)(og_events *e, void *ctx), void *ctx);
/* The next event, valid until the next call; false when the parser failed (its
 * error is then in e->parser). */
bool og_events_next_batch(og_events *e, const yaml_event_t **ev);
static inline bool og_events_next(og_events *e, const yaml_event_t **ev) {
    if (e->pos < e->n) { /* within a batch */
        *ev = &e->ev[e->pos++];
        return true;
    }
    return og_events_next_batch(e, ev);
}
#endif
