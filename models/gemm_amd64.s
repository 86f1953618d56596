//go:build !noasm

#include "textflag.h"

// func gemm4x8(k int, a *float64, ai, ak int, b *float64, ldb int, c *float64, ldc int)
//
// C[i][j] += Σ_{l<k} A(i, l) · B[l][j] for i < 4, j < 8, with A(i, l) at
// a[i·ai + l·ak], B[l][j] at b[l·ldb + j] and C[i][j] at c[i·ldc + j] (strides in
// float64s). The 4×8 block of C is held in Y0…Y7 (two registers a row) while l runs.
TEXT ·gemm4x8(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ ai+16(FP), R8
	SHLQ $3, R8
	MOVQ ak+24(FP), R9
	SHLQ $3, R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R10
	SHLQ $3, R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R11
	SHLQ $3, R11
	TESTQ CX, CX
	JLE  done
	LEAQ (R8)(R8*2), R12 // 3·ai in bytes

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

loop:
	VMOVUPD      (DI), Y8   // B[l][0:4]
	VMOVUPD      32(DI), Y9 // B[l][4:8]
	VBROADCASTSD (SI), Y10  // A(0, l)
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD (SI)(R8*1), Y11 // A(1, l)
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD (SI)(R8*2), Y12 // A(2, l)
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD (SI)(R12*1), Y13 // A(3, l)
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         R9, SI
	ADDQ         R10, DI
	DECQ         CX
	JNZ          loop

	VADDPD  (DX), Y0, Y0
	VADDPD  32(DX), Y1, Y1
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ    R11, DX
	VADDPD  (DX), Y2, Y2
	VADDPD  32(DX), Y3, Y3
	VMOVUPD Y2, (DX)
	VMOVUPD Y3, 32(DX)
	ADDQ    R11, DX
	VADDPD  (DX), Y4, Y4
	VADDPD  32(DX), Y5, Y5
	VMOVUPD Y4, (DX)
	VMOVUPD Y5, 32(DX)
	ADDQ    R11, DX
	VADDPD  (DX), Y6, Y6
	VADDPD  32(DX), Y7, Y7
	VMOVUPD Y6, (DX)
	VMOVUPD Y7, 32(DX)
	VZEROUPPER

done:
	RET
