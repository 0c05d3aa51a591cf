# Hand-run, never in the build or tests: makes the llama programs of tests/llama/
# with ExecuTorch's own exporter and llama example (examples/models/llama, imported
# as is), other dimensions than the corpus's, and times eager PyTorch's decode step
# on the corpus's llama_bench for the README's comparison. Run in the exporter root
# described in ../shared/reference/exporting-programs.md (Debian sid, python3-torch
# 2.14.1, ExecuTorch cff6f4dd under /et):
#     python3 tests/llama/export.py export   # writes tests/llama/*/
#     python3 tests/llama/export.py bench CORPUS   # eager decode timing, 1 and 2 threads
#     python3 tests/llama/export.py large DIR      # DIR/stories15m.pte, DIR/stories110m.pte (not
#         committed: 60 and 440 MB) at those models' shapes, seeded weights, and eager
#         decode timing; tests/bench/README.md times opgen on them (OPGEN_BENCH_LLAMA)
import json, os, sys, time
sys.path.insert(0, "/et/src")
import torch
from executorch.examples.models.llama.llama_transformer import construct_transformer
from executorch.examples.models.llama.model_args import ModelArgs
import executorch.exir as exir
from executorch.exir import EdgeCompileConfig

HERE = os.path.dirname(os.path.abspath(__file__))


def build(cfg):
    torch.manual_seed(cfg["seed"])
    args = {k: v for k, v in cfg.items() if k != "seed"}
    args.setdefault("max_context_len", args["max_seq_len"])  # the KV cache's length (default 2048)
    m = construct_transformer(ModelArgs(**args, use_kv_cache=True, use_sdpa_with_kv_cache_op=False, enable_dynamic_shape=False))
    return m.eval()


def step(m, tok, pos):
    return m(torch.tensor([[tok]], dtype=torch.long), {"input_pos": torch.tensor([pos], dtype=torch.long)})


def logits_of(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def greedy(m, prompt, steps):
    toks, pos = [], 0
    for t in prompt:
        out = logits_of(step(m, t, pos)); pos += 1
    for _ in range(steps):
        t = int(torch.argmax(out.reshape(-1, out.shape[-1])[-1]))
        toks.append(t)
        if len(toks) == steps:
            break
        out = logits_of(step(m, t, pos)); pos += 1
    return toks


def export(name, cfg, prompt, steps):
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    with torch.no_grad():
        m = build(cfg)
        ep = torch.export.export(m, (torch.tensor([[1]], dtype=torch.long), {"input_pos": torch.tensor([0], dtype=torch.long)}))
        prog = exir.to_edge(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()
        with open(os.path.join(out, "model.pte"), "wb") as f:
            f.write(prog.buffer)
        toks = greedy(build(cfg), prompt, steps)  # a fresh instance: an empty KV cache
    info = {"exporter": "tests/llama/export.py: construct_transformer(ModelArgs(%s), use_kv_cache=True, use_sdpa_with_kv_cache_op=False, enable_dynamic_shape=False) after torch.manual_seed(%d); exir.to_edge(torch.export.export(m, (tokens[1,1] int64, {'input_pos': [1] int64})), compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()" % ({k: v for k, v in cfg.items() if k != "seed"}, cfg["seed"]),
            "versions": {"torch": torch.__version__, "executorch": "cff6f4dd"},
            "greedy": {"prompt": prompt, "steps": steps, "tokens": toks}}
    with open(os.path.join(out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(name, os.path.getsize(os.path.join(out, "model.pte")), "bytes, greedy", toks)


def check_corpus(corpus, name, cfg):
    """The corpus's program is this configuration: its greedy tokens are eager's."""
    info = json.load(open(os.path.join(corpus, "exir", name, "info.json")))
    g = info["greedy"]
    with torch.no_grad():
        toks = greedy(build(cfg), g["prompt"], g["steps"])
    print(name, "rebuilt from its recipe:", "same greedy tokens" if toks == g["tokens"] else "DIFFERENT tokens %s" % toks)
    return toks == g["tokens"]


def bench(corpus):
    cfg = {"dim": 128, "n_layers": 4, "n_heads": 8, "n_kv_heads": 4, "vocab_size": 4096, "hidden_dim": 384, "max_seq_len": 128, "seed": 5}
    # the corpus's weights came from a seeding this recipe does not reproduce (its
    # greedy tokens differ): the timing is of the same architecture and shapes,
    # which is what a decode step's cost depends on
    check_corpus(corpus, "llama_bench", cfg)
    for threads in (1, 2):
        torch.set_num_threads(threads)
        with torch.no_grad():
            m = build(cfg)
            for pos, t in enumerate([1, 2000]):
                step(m, t, pos)
            times = []
            for pos in range(2, 26):  # decode steps past the prompt, as opgen-rt generate --timing counts them
                t0 = time.perf_counter(); step(m, 7, pos); times.append((time.perf_counter() - t0) * 1e3)
        times.sort()
        med = (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
        print("eager PyTorch %s, %d thread%s: llama_bench decode step median %.3f ms (%.1f tokens/s), fastest %.3f ms" % (torch.__version__, threads, "s" if threads > 1 else "", med, 1e3 / med, times[0]))


def large(out):
    """Decode programs at the shapes of the stories15M and stories110M llamas (Karpathy's
    llama2.c checkpoints, as ExecuTorch's llama example runs them): weights past the caches."""
    os.makedirs(out, exist_ok=True)
    shapes = {"stories15m": {"dim": 288, "n_layers": 6, "n_heads": 6, "n_kv_heads": 6, "vocab_size": 32000, "hidden_dim": 768, "max_seq_len": 256, "seed": 15},
              "stories110m": {"dim": 768, "n_layers": 12, "n_heads": 12, "n_kv_heads": 12, "vocab_size": 32000, "hidden_dim": 2048, "max_seq_len": 256, "seed": 110}}
    for name, cfg in shapes.items():
        with torch.no_grad():
            m = build(cfg)
            ep = torch.export.export(m, (torch.tensor([[1]], dtype=torch.long), {"input_pos": torch.tensor([0], dtype=torch.long)}))
            prog = exir.to_edge(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()
            path = os.path.join(out, name + ".pte")
            with open(path, "wb") as f:
                f.write(prog.buffer)
            params = sum(p.numel() for p in m.parameters())
            for threads in (1, 2):
                torch.set_num_threads(threads)
                m = build(cfg)
                for pos in range(2):
                    step(m, 1, pos)
                times = []
                for pos in range(2, 34):
                    t0 = time.perf_counter(); step(m, 7, pos); times.append((time.perf_counter() - t0) * 1e3)
                times.sort()
                print("%s: %d parameters, %s %d bytes; eager PyTorch %s, %d thread%s: decode step median %.3f ms" % (name, params, path, os.path.getsize(path), torch.__version__, threads, "s" if threads > 1 else "", times[len(times) // 2]))


if __name__ == "__main__":
    if sys.argv[1] == "export":
        check_corpus(sys.argv[2] if len(sys.argv) > 2 else "/shared/corpus", "llama_decode", {"dim": 48, "n_layers": 1, "n_heads": 4, "n_kv_heads": 4, "vocab_size": 128, "hidden_dim": 96, "max_seq_len": 16, "seed": 11})
        # grouped-query attention, two layers, another vocabulary and context
        export("gqa_2layer", {"dim": 64, "n_layers": 2, "n_heads": 8, "n_kv_heads": 2, "vocab_size": 200, "hidden_dim": 176, "max_seq_len": 32, "seed": 23}, [5, 199, 42], 20)
        # three layers, two query heads per key/value head, odd sizes
        export("wide_3layer", {"dim": 72, "n_layers": 3, "n_heads": 6, "n_kv_heads": 3, "vocab_size": 301, "hidden_dim": 160, "max_seq_len": 24, "seed": 7}, [300, 0, 17], 16)
    elif sys.argv[1] == "large":
        large(sys.argv[2])
    else:
        bench(sys.argv[2])
