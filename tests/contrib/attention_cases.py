"""The com.microsoft attention family's cases for generate.py: GroupQueryAttention,
MultiHeadAttention, Attention and EmbedLayerNormalization, one small node each, with ONNX
Runtime's outputs as the references.

define_cases(case, rng_for, f32) adds them through generate.py's own helpers."""
import numpy as np


def i32(*values):
    return np.array(values, np.int32)


def define_cases(case, rng_for, f32):
    define_group_query_attention_cases(case, rng_for, f32)
    define_multihead_attention_cases(case, rng_for, f32)


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


def define_multihead_attention_cases(case, rng_for, f32):
    # MultiHeadAttention: 2 heads of 8 features, 3 queries over 4 keys unless said otherwise.
    heads, head = 2, 8
    hidden = heads * head

    def mha(name, batch=2, seq=3, kv=4, v_hidden=hidden, bias=False, mask=None, attn_bias=None,
            past=0, outputs=("output",), **attrs):
        r = rng_for(name)
        inputs = [("query", f32(r, batch, seq, hidden)), ("key", f32(r, batch, kv, hidden)),
                  ("value", f32(r, batch, kv, v_hidden)),
                  ("bias", f32(r, 2 * hidden + v_hidden)) if bias else ("", None),
                  ("key_padding_mask", mask) if mask is not None else ("", None),
                  ("attention_bias", f32(r, *attn_bias)) if attn_bias else ("", None)]
        if past:
            inputs += [("past_key", f32(r, batch, heads, past, head)),
                       ("past_value", f32(r, batch, heads, past, v_hidden // heads))]
        while inputs[-1][0] == "":
            inputs.pop()
        case(name, "MultiHeadAttention", inputs, list(outputs), num_heads=heads, **attrs)

    mha("ms_mha")
    mha("ms_mha_bias_v_hidden", v_hidden=24, bias=True)
    mha("ms_mha_key_lengths", mask=i32(4, 2))
    mha("ms_mha_mask_2d", mask=np.array([[1, 1, 0, 1], [1, 0, 0, 0]], np.int32))
    mha("ms_mha_mask_3d", mask=(rng_for("mask3")).integers(0, 2, (2, 3, 4)).astype(np.int32))
    mha("ms_mha_attention_bias", attn_bias=(1, heads, 3, 4))
    mha("ms_mha_attention_bias_batch", attn_bias=(2, 1, 3, 4), mask=i32(3, 4))
    mha("ms_mha_unidirectional", seq=4, unidirectional=1)
    mha("ms_mha_past_present", seq=2, kv=2, past=3, unidirectional=1,
        outputs=("output", "present_key", "present_value"))
    mha("ms_mha_present_no_past", bias=True, outputs=("output", "present_key", "present_value"))
    # A sequence whose keys are all hidden: ONNX Runtime adds mask_filter_value, not -inf, so
    # its queries average the values.
    mha("ms_mha_scale_filter_all_hidden", mask=i32(0, 3), scale=0.2, mask_filter_value=-100.0)

    # Keys and values already in heads [batch, heads, kv, head] (cross attention's cache).
    r = rng_for("ms_mha_cross_in_heads")
    case("ms_mha_cross_in_heads", "MultiHeadAttention",
         [("query", f32(r, 2, 3, hidden)), ("key", f32(r, 2, heads, 5, head)),
          ("value", f32(r, 2, heads, 5, head)), ("", None), ("key_padding_mask", i32(5, 3))],
         ["output"], num_heads=heads)

    # The packed forms, which ONNX Runtime's CPU kernel refuses: the reference is the unpacked
    # MultiHeadAttention (Split and Reshape first) run by ONNX Runtime.
    from onnx import helper

    def unpack(packed, parts, names, shape):
        nodes = [helper.make_node("Split", [packed], [n + "_5d" for n in names], axis=3)]
        nodes.append(helper.make_node("Constant", [], ["unpacked_shape"],
                                      value=helper.make_tensor("s", 7, [3], shape)))
        for n in names:
            nodes.append(helper.make_node("Reshape", [n + "_5d", "unpacked_shape"], [n]))
        return nodes

    r = rng_for("ms_mha_packed_kv")
    case("ms_mha_packed_kv", "MultiHeadAttention",
         [("query", f32(r, 2, 3, hidden)), ("key", f32(r, 2, 4, heads, 2, head)),
          ("", None), ("bias", f32(r, 3 * hidden))], ["output"], num_heads=heads,
         reference=lambda: unpack("key", 2, ["k", "v"], [2, 4, hidden]) + [
             helper.make_node("MultiHeadAttention", ["query", "k", "v", "bias"], ["output"],
                              domain="com.microsoft", num_heads=heads)])
    r = rng_for("ms_mha_packed_qkv")
    case("ms_mha_packed_qkv", "MultiHeadAttention",
         [("query", f32(r, 2, 3, heads, 3, head))], ["output"], num_heads=heads,
         reference=lambda: unpack("query", 3, ["q", "k", "v"], [2, 3, hidden]) + [
             helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["output"],
                              domain="com.microsoft", num_heads=heads)])
