# Hand-run, never in the build or tests: ExecuTorch's llama (examples/models/llama)
# exported the way its LLM recipe (LLMEdgeManager) does for the portable path:
# ConvertToLinearPass after to_edge, so every projection is aten::linear.out;
# llm_int8_emb also quantizes the embedding as `-E 8,0` does
# (get_quant_embedding_transform: quantized_decomposed::embedding_byte.dtype_out).
# Other dimensions than anything in ../shared. Each program is called token by
# token (its KV cache persists: info.json "persists"); the expected logits are
# the eager module's, one instance called the same way.
# Run in the exporter root of ../shared/reference/exporting-programs.md (Debian
# sid, python3-torch 2.14.1, ExecuTorch cff6f4dd under /et with its
# examples/models/llama .py files, torchao under /ao):
#     python3 tests/exir/export_llm.py [llm_linear | llm_int8_emb]
import json, os, sys
sys.path.insert(0, "/et/src")
sys.path.insert(0, "/ao")
import numpy as np
import torch
import executorch.exir as exir
from executorch.exir import EdgeCompileConfig
from executorch.backends.xnnpack._passes.convert_to_linear import ConvertToLinearPass
from executorch.examples.models.llama.llama_transformer import construct_transformer
from executorch.examples.models.llama.model_args import ModelArgs
import executorch.exir.passes._quant_patterns_and_replacements  # noqa: F401 (embedding_byte.dtype)

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENS = [5, 61, 17, 3, 88, 40, 9]


def model(seed):
    torch.manual_seed(seed)
    args = ModelArgs(dim=48, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=96, hidden_dim=112, max_seq_len=16,
                     max_context_len=16, use_kv_cache=True, use_sdpa_with_kv_cache_op=False,
                     enable_dynamic_shape=False)
    m = construct_transformer(args)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.randn(p.shape) * 0.2)
    return m.eval()


def export(name, m):
    out = os.path.join(HERE, name)
    for sub in ("inputs", "expected"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    example = (torch.tensor([[TOKENS[0]]], dtype=torch.long), {"input_pos": torch.tensor([0], dtype=torch.long)})
    with torch.no_grad():
        ep = torch.export.export(m, example, strict=False)
        edge = exir.to_edge(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False))
        edge = edge.transform([ConvertToLinearPass()])
        prog = edge.to_executorch()
    with open(os.path.join(out, "model.pte"), "wb") as f:
        f.write(prog.buffer)
    eager = model(SEEDS[name])  # a fresh instance: its KV cache starts empty, as the program's
    if name == "llm_int8_emb":
        eager = quantize_embedding(eager)
    with torch.no_grad():
        for k, t in enumerate(TOKENS):
            tok, pos = torch.tensor([[t]], dtype=torch.long), torch.tensor([k], dtype=torch.long)
            np.save(os.path.join(out, "inputs", "%d_0.npy" % k), tok.numpy())
            np.save(os.path.join(out, "inputs", "%d_1.npy" % k), pos.numpy())
            np.save(os.path.join(out, "expected", "%d_0.npy" % k), eager(tok, {"input_pos": pos}).numpy())
    ops = sorted({str(n.target) for n in prog.exported_program().graph.nodes if n.op == "call_function"})
    info = {"exporter": "tests/exir/export_llm.py (%s)" % name,
            "versions": {"torch": torch.__version__, "executorch": "cff6f4dd"}, "calls": len(TOKENS),
            "persists": "the KV cache (mutable buffers)", "operators": ops}
    with open(os.path.join(out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(name, os.path.getsize(os.path.join(out, "model.pte")), "bytes;", ops)


def quantize_embedding(m):
    import types  # the LLM builder imports a tokenizer package the export does not use
    sys.modules.setdefault("pytorch_tokenizers", types.ModuleType("pytorch_tokenizers")).get_tokenizer = None
    from executorch.examples.models.llama.source_transformation.quantize import get_quant_embedding_transform
    return get_quant_embedding_transform("8,0")(m)


SEEDS = {"llm_linear": 7, "llm_int8_emb": 11}

if __name__ == "__main__":
    for name in sys.argv[1:] or SEEDS:
        m = model(SEEDS[name])
        export(name, quantize_embedding(m) if name == "llm_int8_emb" else m)
