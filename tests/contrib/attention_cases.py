"""The com.microsoft attention family's cases for generate.py: GroupQueryAttention,
MultiHeadAttention, Attention and EmbedLayerNormalization, one small node each, with ONNX
Runtime's outputs as the references.

define_cases(case, rng_for, f32) adds them through generate.py's own helpers."""
import numpy as np


def i32(*values):
    return np.array(values, np.int32)


def define_cases(case, rng_for, f32):
    define_group_query_attention_cases(case, rng_for, f32)


def define_group_query_attention_cases(case, rng_for, f32):
    # GroupQueryAttention: 4 query heads over 2 key/value heads of 16 features (ONNX Runtime's
    # rotary path wants head sizes that are multiples of 16). seqlens_k[b] is sequence b's valid
    # key count (past and new) minus one; the present caches are BNSH.
    heads, kv_heads = 4, 2

    def gqa(name, batch, seq, seqlens, total, past=0, packed=False, rotary=None,
            position_ids=None, bias=False, outputs=("output", "present_key", "present_value"),
            head=16, **attrs):
        r = rng_for(name)
        inputs = []
        if packed:
            inputs += [("query", f32(r, batch, seq, (heads + 2 * kv_heads) * head)), ("", None),
                       ("", None)]
        else:
            inputs += [("query", f32(r, batch, seq, heads * head)),
                       ("key", f32(r, batch, seq, kv_heads * head)),
                       ("value", f32(r, batch, seq, kv_heads * head))]
        if past:
            inputs += [("past_key", f32(r, batch, kv_heads, past, head)),
                       ("past_value", f32(r, batch, kv_heads, past, head))]
        else:
            inputs += [("", None), ("", None)]
        inputs += [("seqlens_k", i32(*seqlens)), ("total_sequence_length", i32(total))]
        if rotary:
            rows, half = rotary
            angles = r.uniform(-3, 3, (rows, half))
            inputs += [("cos_cache", np.cos(angles).astype(np.float32)),
                       ("sin_cache", np.sin(angles).astype(np.float32))]
            attrs["do_rotary"] = 1
        else:
            inputs += [("", None), ("", None)]
        inputs.append(("position_ids", position_ids) if position_ids is not None else ("", None))
        inputs.append(("attention_bias", f32(r, batch, 1, seq, total)) if bias else ("", None))
        while inputs[-1][0] == "":
            inputs.pop()
        case(name, "GroupQueryAttention", inputs, list(outputs), num_heads=heads,
             kv_num_heads=kv_heads, **attrs)

    # The first prompt: every token of both sequences, then one with right padding.
    gqa("ms_gqa_prompt", 2, 4, [3, 3], 4)
    gqa("ms_gqa_prompt_padded", 2, 4, [3, 1], 4)
    # Token generation: one new token after a past of 5 (sequence 1 has only 3 valid past keys).
    gqa("ms_gqa_decode", 2, 1, [5, 3], 6, past=5)
    # The shared-buffer form: past and present as long as the longest sequence will be.
    gqa("ms_gqa_decode_shared_buffer", 2, 1, [4, 2], 5, past=8)
    # A later prompt chunk of 3 tokens after 4 past keys (batch 1 only).
    gqa("ms_gqa_later_prompt", 1, 3, [6], 7, past=4)
    gqa("ms_gqa_packed_qkv", 2, 3, [2, 2], 3)
    gqa("ms_gqa_packed_qkv_decode", 1, 1, [3], 4, past=3, packed=True)
    gqa("ms_gqa_rotary_prompt", 2, 3, [2, 2], 3, rotary=(8, 8))
    gqa("ms_gqa_rotary_interleaved_decode", 2, 1, [4, 2], 5, past=4, rotary=(8, 8),
        rotary_interleaved=1)
    gqa("ms_gqa_rotary_partial_packed", 1, 3, [2], 3, packed=True, rotary=(8, 8), head=32)
    gqa("ms_gqa_local_window", 1, 6, [5], 6, local_window_size=2)
    gqa("ms_gqa_local_window_decode", 2, 1, [6, 3], 7, past=6, local_window_size=3)
    gqa("ms_gqa_softcap_scale", 2, 3, [2, 2], 3, softcap=2.0, scale=0.3)
    gqa("ms_gqa_attention_bias", 2, 3, [2, 2], 3, bias=True)
    gqa("ms_gqa_position_ids", 1, 3, [5], 6, past=3, rotary=(10, 8),
        position_ids=np.array([[6, 7, 9]], np.int64))
    gqa("ms_gqa_non_causal", 2, 3, [2, 2], 3, causal=0)
