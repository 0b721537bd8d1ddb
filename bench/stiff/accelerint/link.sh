#!/bin/bash
# Link the accelerInt GPU solvers: device link for sm_90 and host link with static cudart/lapack/blas/fftw/gomp/libstdc++
set -e
cd /work/accel/accelerInt
for s in "$@"; do
  line=$(grep -- "-dlink -o $s-int-gpu_dlink.o" /work/accel/gpu_cmds.txt)
  objs=$(echo "$line" | awk '{for(i=2;i<=NF;i++){ if($i ~ /^-/) break; printf "%s ", $i}}')
  nice nvcc -arch=sm_90 $objs -dlink -o $s-int-gpu_dlink.o
  nice gcc -fPIC -o $s-int-gpu $objs $s-int-gpu_dlink.o -L/usr/local/cuda/lib64 -L/usr/lib/x86_64-linux-gnu \
     -static-libgcc -Wl,--as-needed -Wl,-Bstatic -lcudart_static -lfftw3 -llapack -lblas -lgfortran -lquadmath -lgomp -lstdc++ \
     -Wl,-Bdynamic -lm -lrt -ldl -lpthread
  echo "linked $s-int-gpu"; ldd $s-int-gpu || true
done
