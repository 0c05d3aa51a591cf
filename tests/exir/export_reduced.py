# Hand-run, never in the build or tests: programs in bfloat16 and float16,
# exported by ExecuTorch's own exporter (portable path) for the suite
# (tests/exir/NAME/): model.pte; inputs/K_I.npy (bf16 as raw '<V2' bits);
# expected/K_O.npy, eager PyTorch in the program's dtype; f32/K_O.npy, eager
# PyTorch in float32 (the same weights before the cast, the same inputs). The
# suite checks opgen's result against f32 no further than twice eager's.
#   bf16_block: a pre-norm transformer block (RMS norm through pow, causal
#               attention from matmul and softmax, layer norm, tanh GELU);
#   fp16_cnn:   conv, batch norm, relu, max pool, a strided and a depthwise
#               conv, hardswish, adaptive average pool, linear;
#   llm_bf16:   ExecuTorch's llama (examples/models/llama, ConvertToLinearPass
#               as its LLM recipe) cast to bf16, KV cache in bf16; calls fed
#               its own greedy tokens (eager bf16's), info.json "tokens".
# Run in the exporter root of ../shared/reference/exporting-programs.md (Debian
# sid, python3-torch 2.14.1, ExecuTorch cff6f4dd under /et):
#     python3 tests/exir/export_reduced.py [bf16_block | fp16_cnn | llm_bf16]
import copy, json, os, sys
sys.path.insert(0, "/et/src")
import numpy as np
import torch
import torch.nn.functional as F
import executorch.exir as exir
from executorch.exir import EdgeCompileConfig

HERE = os.path.dirname(os.path.abspath(__file__))


def to_np(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: its raw bits, as ml_dtypes saves them
        return t.view(torch.int16).numpy().view(np.uint16).view("<V2")
    return t.numpy()


class Block(torch.nn.Module):
    def __init__(self, d=40, heads=5, ff=72, t=6):
        super().__init__()
        self.heads = heads
        self.w = torch.nn.Parameter(torch.rand(d) + 0.5)
        self.qkv, self.o = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.n2 = torch.nn.LayerNorm(d)
        self.up, self.down = torch.nn.Linear(d, ff), torch.nn.Linear(ff, d)
        self.register_buffer("causal", torch.tril(torch.ones(t, t, dtype=torch.bool)))

    def forward(self, x):
        b, t, d = x.shape
        hd = d // self.heads
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w
        q, k, v = (z.view(b, t, self.heads, hd).transpose(1, 2) for z in self.qkv(h).split(d, -1))
        att = (q @ k.transpose(-2, -1)) * hd ** -0.5
        att = torch.softmax(att.masked_fill(~self.causal, float("-inf")), dim=-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.n2(x)), approximate="tanh"))


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        bn = torch.nn.BatchNorm2d
        self.c1, self.b1 = torch.nn.Conv2d(3, 12, 3, padding=1), bn(12)
        self.c2, self.b2 = torch.nn.Conv2d(12, 20, 3, stride=2, padding=1, bias=False), bn(20)
        self.dw, self.b3 = torch.nn.Conv2d(20, 20, 3, padding=1, groups=20), bn(20)
        self.fc = torch.nn.Linear(20, 7)
        for m in self.modules():
            if isinstance(m, bn):
                m.weight.data.uniform_(0.5, 1.5), m.bias.data.uniform_(-0.5, 0.5)
                m.running_mean.uniform_(-0.2, 0.2), m.running_var.uniform_(0.5, 2)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.b1(self.c1(x))), 2)
        x = F.hardswish(self.b2(self.c2(x)))
        x = torch.relu(self.b3(self.dw(x)) + x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def save(out, kind, k, res):
    os.makedirs(os.path.join(out, kind), exist_ok=True)
    for o, r in enumerate(res if isinstance(res, tuple) else (res,)):
        np.save(os.path.join(out, kind, "%d_%d.npy" % (k, o)), to_np(r))


def write_info(name, prog, calls, dtype, extra):
    ops = sorted({str(n.target) for n in prog.exported_program().graph.nodes if n.op == "call_function"})
    info = {"exporter": "tests/exir/export_reduced.py (%s)" % name,
            "versions": {"torch": torch.__version__, "executorch": "cff6f4dd"}, "dtype": str(dtype),
            "calls": calls, "expected": "eager PyTorch in %s" % dtype, "f32": "eager PyTorch in float32",
            "operators": ops}
    info.update(extra)
    with open(os.path.join(HERE, name, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(name, os.path.getsize(os.path.join(HERE, name, "model.pte")), "bytes;", ops)


def export_plain(name, model, dtype, calls):
    """calls: float32 inputs; the program takes them cast to dtype."""
    out = os.path.join(HERE, name)
    os.makedirs(os.path.join(out, "inputs"), exist_ok=True)
    f32 = model.eval()
    low = copy.deepcopy(f32).to(dtype)
    with torch.no_grad():
        ep = torch.export.export(low, tuple(a.to(dtype) for a in calls[0]))
        prog = exir.to_edge(ep).to_executorch()
        with open(os.path.join(out, "model.pte"), "wb") as f:
            f.write(prog.buffer)
        for k, args in enumerate(calls):
            for i, a in enumerate(args):
                np.save(os.path.join(out, "inputs", "%d_%d.npy" % (k, i)), to_np(a.to(dtype)))
            save(out, "expected", k, low(*(a.to(dtype) for a in args)))
            save(out, "f32", k, f32(*(a.to(dtype).float() for a in args)))
    write_info(name, prog, len(calls), dtype, {})


def export_llm():
    sys.path.insert(0, "/ao")
    from executorch.backends.xnnpack._passes.convert_to_linear import ConvertToLinearPass
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    def make():
        torch.manual_seed(41)
        args = ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=112, hidden_dim=144,
                         max_seq_len=16, max_context_len=16, use_kv_cache=True, use_sdpa_with_kv_cache_op=False,
                         enable_dynamic_shape=False)
        m = construct_transformer(args)
        with torch.no_grad():
            for p in m.parameters():
                p.copy_(torch.randn(p.shape) * 0.5)
        return m.eval()

    name, out = "llm_bf16", os.path.join(HERE, "llm_bf16")
    os.makedirs(os.path.join(out, "inputs"), exist_ok=True)
    example = (torch.tensor([[3]], dtype=torch.long), {"input_pos": torch.tensor([0], dtype=torch.long)})
    with torch.no_grad():
        ep = torch.export.export(make().to(torch.bfloat16), example, strict=False)
        edge = exir.to_edge(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False))
        prog = edge.transform([ConvertToLinearPass()]).to_executorch()
    with open(os.path.join(out, "model.pte"), "wb") as f:
        f.write(prog.buffer)
    low, f32 = make().to(torch.bfloat16), make()  # fresh instances: empty caches, as the program's
    prompt, tokens = [3, 77, 20], []
    with torch.no_grad():
        tok = prompt[0]
        for k in range(10):
            tokens.append(tok)
            t, pos = torch.tensor([[tok]], dtype=torch.long), torch.tensor([k], dtype=torch.long)
            np.save(os.path.join(out, "inputs", "%d_0.npy" % k), t.numpy())
            np.save(os.path.join(out, "inputs", "%d_1.npy" % k), pos.numpy())
            logits = low(t, {"input_pos": pos})
            save(out, "expected", k, logits)
            save(out, "f32", k, f32(t, {"input_pos": pos}))
            tok = prompt[k + 1] if k + 1 < len(prompt) else int(logits.reshape(-1, logits.shape[-1])[-1].float().argmax())
    write_info(name, prog, 10, torch.bfloat16,
               {"persists": "the KV cache (mutable buffers, bf16)", "prompt": prompt, "tokens": tokens[1:] + [tok]})


def main(which):
    if not which or "bf16_block" in which:
        torch.manual_seed(51)
        g = torch.Generator().manual_seed(52)
        export_plain("bf16_block", Block(), torch.bfloat16, [(torch.randn(2, 6, 40, generator=g),) for _ in range(2)])
    if not which or "fp16_cnn" in which:
        torch.manual_seed(53)
        g = torch.Generator().manual_seed(54)
        export_plain("fp16_cnn", Cnn(), torch.float16, [(torch.randn(2, 3, 18, 20, generator=g),) for _ in range(2)])
    if not which or "llm_bf16" in which:
        export_llm()


if __name__ == "__main__":
    main(sys.argv[1:])
